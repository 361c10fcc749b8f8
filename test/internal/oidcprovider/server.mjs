// Test-only authorization server: the npm oidc-provider on 127.0.0.1, driven by the Go package
// github.com/svckit/svc/test/oidcprovider. Never run it anywhere but a test.
//
// Usage: node server.mjs CONFIG.json
//
// It listens on 127.0.0.1:0 first, so the issuer (http://127.0.0.1:PORT) is known before the
// provider is built, then prints one JSON line {"issuer": ...} on stdout; with config.mtls a
// second listener, https on 127.0.0.1 requesting client certificates, serves the same provider
// and the line names it too ({"issuer": ..., "mtls": "https://127.0.0.1:PORT2"}). The
// test-only admin routes under /__admin/ need the X-Admin-Token header from the config.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import * as querystring from 'node:querystring';
import { promisify } from 'node:util';

const generateKeyPair = promisify(crypto.generateKeyPair);

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const AT_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const JWT_TYPE = 'urn:ietf:params:oauth:token-type:jwt';
const MAX_LOG = 1000;

const config = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));

// State shared by every provider generation (a key rotation builds a new Provider instance,
// because oidc-provider reads its keystore once, at construction).
const state = {
  keys: [], // private JWKs, the newest first: the first key of an alg signs
  fail: { n: 0, status: 503, retryAfter: '', error: '' },
  delayMs: 0,
  counts: { token: 0, jwks: 0, discovery: 0, introspection: 0 },
  tokenLog: [],
  provider: undefined,
  handler: undefined,
  mtlsBase: undefined, // the mutual-TLS listener, https://127.0.0.1:PORT, with config.mtls
};

// newKeys makes a fresh ES256 and RS256 key pair off the main thread (RSA takes a while).
function newKeys() {
  return Promise.all([
    ['ES256', 'ec', { namedCurve: 'P-256' }],
    ['RS256', 'rsa', { modulusLength: 2048 }],
  ].map(async ([alg, type, opts]) => {
    const { privateKey } = await generateKeyPair(type, opts);
    const jwk = privateKey.export({ format: 'jwk' });
    return { ...jwk, alg, use: 'sig', kid: `${alg.toLowerCase()}-${crypto.randomUUID()}` };
  }));
}

// Loading oidc-provider and making keys overlap: both dominate start-up.
const [{ default: Provider, errors }, { createLocalJWKSet, jwtVerify }, firstKeys] = await Promise.all([
  import('oidc-provider'),
  import('jose'),
  newKeys(),
]);

function publicJWKS() {
  const pub = state.keys.map((k) => {
    const key = crypto.createPublicKey({ key: k, format: 'jwk' }).export({ format: 'jwk' });
    return { ...key, alg: k.alg, use: k.use, kid: k.kid };
  });
  return { keys: pub };
}

function signingKid(alg) {
  return state.keys.find((k) => k.alg === alg)?.kid;
}

function resourceServerInfo(identifier, client) {
  if (config.resources?.length && !config.resources.includes(identifier)) {
    throw new errors.InvalidTarget();
  }
  return {
    audience: identifier,
    scope: config.resourceScope,
    accessTokenTTL: config.accessTokenTTL,
    accessTokenFormat: config.opaqueClients?.includes(client?.clientId) ? 'opaque' : 'jwt',
    jwt: { sign: { alg: config.signingAlg, kid: signingKid(config.signingAlg) } },
  };
}

// verifyIssued checks that token is a JWT access token this provider signed with a key it
// still publishes, and returns its claims.
async function verifyIssued(token, what) {
  if (typeof token !== 'string' || !token) {
    throw new errors.InvalidRequest(`missing ${what}`);
  }
  try {
    const { payload } = await jwtVerify(token, createLocalJWKSet(publicJWKS()), {
      issuer: state.provider.issuer,
      typ: 'at+jwt',
      algorithms: ['ES256', 'RS256'],
    });
    return payload;
  } catch (cause) {
    throw new errors.InvalidGrant(`${what} is invalid: ${cause.code || cause.message}`);
  }
}

function checkTokenType(value, what) {
  if (value !== undefined && value !== AT_TYPE && value !== JWT_TYPE) {
    throw new errors.InvalidRequest(`unsupported ${what}`);
  }
}

// tokenExchange implements RFC 8693 for access tokens: the new token keeps the subject's sub,
// is scoped down to what the subject token had, and names the actor in act when one is given.
async function tokenExchange(ctx) {
  const { params, client, provider } = ctx.oidc;
  if (!params.subject_token_type) {
    throw new errors.InvalidRequest('missing subject_token_type');
  }
  checkTokenType(params.subject_token_type, 'subject_token_type');
  checkTokenType(params.requested_token_type, 'requested_token_type');
  if (params.actor_token && !params.actor_token_type) {
    throw new errors.InvalidRequest('missing actor_token_type');
  }
  checkTokenType(params.actor_token_type, 'actor_token_type');

  const subject = await verifyIssued(params.subject_token, 'subject_token');
  const actor = params.actor_token ? await verifyIssued(params.actor_token, 'actor_token') : undefined;

  const identifier = params.resource || params.audience || config.resource;
  if (!URL.parse(identifier)) {
    throw new errors.InvalidTarget('resource indicator must be an absolute URI');
  }
  const resourceServer = new provider.ResourceServer(identifier, resourceServerInfo(identifier, client));

  const had = new Set((subject.scope || '').split(' ').filter(Boolean));
  const allowed = resourceServer.scopes;
  let scopes = params.scope ? params.scope.split(' ').filter(Boolean) : [...had];
  const notHeld = scopes.filter((s) => !had.has(s));
  if (notHeld.length) {
    throw new errors.InvalidScope('requested scope exceeds the subject_token scope', notHeld.join(' '));
  }
  scopes = scopes.filter((s) => allowed.has(s));

  const token = new provider.ClientCredentials({
    client,
    scope: scopes.join(' ') || undefined,
  });
  token.resourceServer = resourceServer;
  token.svcExchange = { sub: subject.sub, act: actor ? { sub: actor.sub } : undefined };
  const value = await token.save();

  ctx.body = {
    access_token: value,
    issued_token_type: AT_TYPE,
    token_type: 'Bearer',
    expires_in: token.expiration,
    ...(token.scope ? { scope: token.scope } : undefined),
  };
}

// peerCertificate is the client certificate presented to the mutual-TLS listener, or undefined.
function peerCertificate(ctx) {
  const { socket } = ctx.req;
  if (typeof socket.getPeerCertificate !== 'function') return undefined;
  const { raw } = socket.getPeerCertificate();
  return raw ? new crypto.X509Certificate(raw) : undefined;
}

function certificateThumbprint(cert) {
  return cert ? crypto.hash('sha256', cert.raw, 'base64url') : '';
}

const DISCOVERY = new Set(['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']);
const BODY_LIMIT = 56 * 1024;

// readForm parses an urlencoded request body; oidc-provider then takes it from ctx.req.body.
// It returns null for a body over oidc-provider's own limit.
async function readForm(ctx) {
  if (!ctx.is('application/x-www-form-urlencoded')) return undefined;
  const chunks = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += chunk.length;
    if (size > BODY_LIMIT) return null;
    chunks.push(chunk);
  }
  const form = { ...querystring.parse(Buffer.concat(chunks).toString('utf8')) };
  ctx.req.body = form;
  return form;
}

function tokenEndpointMiddleware(provider) {
  const tokenPath = provider.pathFor('token');
  const jwksPath = provider.pathFor('jwks');
  const introspectionPath = provider.pathFor('introspection');

  return async (ctx, next) => {
    if (ctx.path === jwksPath) state.counts.jwks += 1;
    if (ctx.path === introspectionPath) state.counts.introspection += 1;
    if (DISCOVERY.has(ctx.path)) {
      state.counts.discovery += 1;
      await next();
      // RFC 8705 §5: oidc-provider serves one host; the harness's mutual-TLS listener is the
      // alias clients with a certificate use.
      if (state.mtlsBase && ctx.body && typeof ctx.body === 'object') {
        ctx.body.mtls_endpoint_aliases = { token_endpoint: state.mtlsBase + tokenPath };
      }
      return undefined;
    }
    if (ctx.path !== tokenPath || ctx.method !== 'POST') {
      return next();
    }
    state.counts.token += 1;
    const entry = {
      authorization: (ctx.get('authorization').split(' ')[0] || ''),
      basic_client_id: basicClientID(ctx.get('authorization')),
      dpop: ctx.get('dpop') !== '',
      mtls: !!ctx.req.socket.encrypted,
      certificate: certificateThumbprint(peerCertificate(ctx)),
    };
    const form = await readForm(ctx);
    if (form === null) {
      ctx.status = 413;
      ctx.body = { error: 'invalid_request', error_description: 'request entity too large' };
      return undefined;
    }
    // oidc-provider drops `audience` on client_credentials; Auth0-style clients send it
    // instead of `resource`, so it stands in for a missing resource.
    if (form?.audience !== undefined && form.resource === undefined) {
      form.resource = form.audience;
    }
    const logged = { ...form };
    if (logged.client_secret !== undefined) logged.client_secret = '[redacted]';
    entry.form = logged;

    if (state.delayMs > 0) {
      await new Promise((resolve) => { setTimeout(resolve, state.delayMs); });
    }
    if (state.fail.n > 0) {
      state.fail.n -= 1;
      const { status, retryAfter, error } = state.fail;
      ctx.status = status;
      if (retryAfter) ctx.set('Retry-After', retryAfter);
      ctx.set('Cache-Control', 'no-store');
      if (error) {
        ctx.body = { error, error_description: 'injected by the test' };
      } else {
        ctx.body = '';
      }
      entry.injected = true;
    } else {
      await next();
    }
    entry.status = ctx.status;
    entry.error = (ctx.body && typeof ctx.body === 'object' && ctx.body.error) || '';
    if (state.tokenLog.length < MAX_LOG) state.tokenLog.push(entry);
    return undefined;
  };
}

function basicClientID(header) {
  const [scheme, value] = header.split(' ');
  if (!scheme || scheme.toLowerCase() !== 'basic' || !value) return '';
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  return i < 0 ? '' : decodeURIComponent(decoded.slice(0, i));
}

function buildProvider(issuer) {
  const scopes = new Set(['openid', 'offline_access']);
  for (const c of config.clients) {
    for (const s of (c.scope || '').split(' ').filter(Boolean)) scopes.add(s);
  }
  for (const s of config.resourceScope.split(' ').filter(Boolean)) scopes.add(s);

  const provider = new Provider(issuer, {
    clients: config.clients,
    jwks: { keys: state.keys },
    scopes: [...scopes],
    cookies: { keys: [crypto.randomBytes(32).toString('hex')] },
    clockTolerance: 5,
    clientAuthMethods: [
      'client_secret_basic', 'client_secret_jwt', 'client_secret_post', 'private_key_jwt', 'none',
      ...(config.mtls ? ['tls_client_auth', 'self_signed_tls_client_auth'] : []),
    ],
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      // RFC 9701: signed answers (RS256 unless a client registers
      // introspection_signed_response_alg) to clients that ask with Accept.
      jwtIntrospection: { enabled: !!config.jwtIntrospection },
      revocation: { enabled: true },
      // RFC 9449: a token request with a proof gets a key-bound token; with dpopNonce the
      // server nonce is required too.
      dPoP: config.dpopNonce
        ? { enabled: true, nonceSecret: crypto.randomBytes(32), requireNonce: () => true }
        : { enabled: true },
      // RFC 8705, on the mutual-TLS listener: the listener verifies a chain to config.mtls.ca
      // (socket.authorized) without requiring one, so self-signed certificates reach
      // self_signed_tls_client_auth.
      mTLS: {
        enabled: !!config.mtls,
        certificateBoundAccessTokens: true,
        tlsClientAuth: true,
        selfSignedTlsClientAuth: true,
        getCertificate: peerCertificate,
        certificateAuthorized: (ctx) => ctx.req.socket.authorized === true,
        certificateSubjectMatches(ctx, property, expected) {
          return property === 'tls_client_auth_subject_dn' && peerCertificate(ctx)?.subject === expected;
        },
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => config.resource,
        getResourceServerInfo: (ctx, identifier, client) => resourceServerInfo(identifier, client),
        useGrantedResource: () => true,
      },
    },
    formats: {
      customizers: {
        jwt(ctx, token, jwt) {
          if (token.svcExchange) {
            jwt.payload.sub = token.svcExchange.sub;
            if (token.svcExchange.act) jwt.payload.act = token.svcExchange.act;
          }
          // Test-only user-authentication context for the step-up tests (RFC 9470): a
          // client-credentials token has none, so the test names the acr and the login's age.
          const acr = ctx?.get('x-svc-test-acr');
          if (acr) jwt.payload.acr = acr;
          const age = ctx?.get('x-svc-test-auth-age');
          if (age) jwt.payload.auth_time = Math.floor(Date.now() / 1000) - Number(age);
        },
      },
    },
    ttl: {
      ClientCredentials: (ctx, token) => token.resourceServer?.accessTokenTTL || config.accessTokenTTL,
    },
  });
  provider.registerGrantType(TOKEN_EXCHANGE, tokenExchange, [
    'subject_token', 'subject_token_type', 'actor_token', 'actor_token_type',
    'requested_token_type', 'audience', 'resource', 'scope',
  ]);
  provider.use(tokenEndpointMiddleware(provider));
  // oidc-provider logs nothing by itself; server errors would otherwise vanish.
  provider.on('server_error', (ctx, err) => { console.error('server_error', err); });
  return provider;
}

function install(issuer) {
  state.provider = buildProvider(issuer);
  state.handler = state.provider.callback();
}

async function readJSON(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : {};
}

function reply(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function admin(req, res, issuer) {
  const given = Buffer.from(req.headers['x-admin-token'] || '');
  const want = Buffer.from(config.adminToken);
  if (given.length !== want.length || !crypto.timingSafeEqual(given, want)) {
    reply(res, 403, { error: 'bad admin token' });
    return;
  }
  const path = new URL(req.url, issuer).pathname;
  const body = await readJSON(req);
  switch (path) {
    case '/__admin/rotate': {
      const fresh = await newKeys();
      state.keys = body.keepOld ? [...fresh, ...state.keys] : fresh;
      install(issuer);
      reply(res, 200, { kid: signingKid(config.signingAlg), jwks: publicJWKS() });
      return;
    }
    case '/__admin/fail':
      state.fail = {
        n: body.n, status: body.status, retryAfter: body.retryAfter || '', error: body.error || '',
      };
      reply(res, 200, {});
      return;
    case '/__admin/delay':
      state.delayMs = body.ms;
      reply(res, 200, {});
      return;
    case '/__admin/stats':
      reply(res, 200, { counts: state.counts, tokenLog: state.tokenLog, kid: signingKid(config.signingAlg) });
      return;
    case '/__admin/reset':
      state.counts = { token: 0, jwks: 0, discovery: 0, introspection: 0 };
      state.tokenLog = [];
      reply(res, 200, {});
      return;
    default:
      reply(res, 404, { error: 'no such admin route' });
  }
}

state.keys = firstKeys;

const server = http.createServer((req, res) => {
  if (req.url.startsWith('/__admin/')) {
    admin(req, res, state.provider.issuer).catch((err) => {
      console.error('admin', err);
      if (!res.headersSent) reply(res, 500, { error: String(err) });
    });
    return;
  }
  state.handler(req, res);
});

function listen(srv) {
  return new Promise((resolve) => {
    srv.listen(0, '127.0.0.1', () => resolve(srv.address().port));
  });
}

const [port, mtlsPort] = await Promise.all([
  listen(server),
  config.mtls
    ? listen(https.createServer({
      cert: config.mtls.cert,
      key: config.mtls.key,
      ca: config.mtls.ca,
      requestCert: true,
      rejectUnauthorized: false,
    }, (req, res) => state.handler(req, res)))
    : undefined,
]);
const issuer = `http://127.0.0.1:${port}`;
if (mtlsPort) state.mtlsBase = `https://127.0.0.1:${mtlsPort}`;
install(issuer);
process.stdout.write(`${JSON.stringify({ issuer, mtls: state.mtlsBase })}\n`);

// The Go side closes our stdin when the test ends: a crashed or killed test never leaves us behind.
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => process.exit(0));
