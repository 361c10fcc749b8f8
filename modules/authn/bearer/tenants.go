package bearer

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/svckit/svc/internal/urlshape"
)

// tenantPlaceholder marks the tenant in an issuer template, as Microsoft
// Entra's multi-tenant discovery document writes it.
const tenantPlaceholder = "{tenantid}"

// Bounds of the tenants a template discovers from tokens (AnyTenant): a
// token can name any tenant before it is verified, so what it may cost
// is bounded — the tenants held (each a verifier with its keys), and the
// tenants discovered per minute.
const (
	maxHeldTenants      = 100
	newTenantsPerMinute = 10
)

// Tenants lets Discover trust an issuer template: an issuer URL with
// "{tenantid}" as one segment of its path, as Microsoft Entra's
// multi-tenant apps are written
// ("https://login.microsoftonline.com/{tenantid}/v2.0"), for the tenants
// named. A token's `iss` is matched against the template, its tenant must
// be one of ids and its `tid` claim must name the same tenant; each
// tenant is then verified as its own issuer, discovered at the template
// with its id in place (keys load at Open). A tenant not named is refused
// (ReasonIssuer) with no fetch.
//
// It refuses an id that is empty or not letters, digits, '-', '.' or '_',
// and being given with an issuer that is not a template.
func Tenants(ids ...string) VerifierOption {
	return func(c *verifierConfig) {
		r := c.tenantRule()
		for _, id := range ids {
			if !validTenant(id) {
				c.refuse("Tenants", fmt.Sprintf("names the tenant %s: a tenant is 1 to 64 letters, digits, '-', '.' or '_'", quoteSetting(id)))
				continue
			}
			r.allowed[id] = true
		}
	}
}

// AnyTenant lets Discover trust an issuer template (see Tenants) for
// every tenant a token names: the explicit choice of a multi-tenant app
// open to any organization. Tenants are discovered when a token first
// names them — at most 10 new ones a minute, beyond which such a token is
// answered 503 with Retry-After — and at most 100 are held, the least
// recently used dropped first. A tenant's discovery refuses a redirect to
// another host, and a private, loopback or link-local address unless the
// template's own host is one (development); an HTTPClient given by option
// replaces those rules with its own.
func AnyTenant() VerifierOption {
	return func(c *verifierConfig) { c.tenantRule().any = true }
}

// tenantRule is what Tenants and AnyTenant set.
type tenantRule struct {
	allowed map[string]bool
	any     bool
}

func (c *verifierConfig) tenantRule() *tenantRule {
	if c.tenants == nil {
		c.tenants = &tenantRule{allowed: map[string]bool{}}
	}
	return c.tenants
}

func validTenant(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return false
		}
	}
	return id != "." && id != ".."
}

// tenantSet is the verifier of an issuer template: one Discover verifier
// per tenant, made at Open for the tenants named, on first use for any.
type tenantSet struct {
	prefix, suffix string // the template around {tenantid}
	audience       string
	opts           []VerifierOption
	rule           tenantRule
	client         *http.Client // for the tenants' discovery and keys
	now            func() time.Time

	mu     sync.Mutex
	open   bool
	held   map[string]*list.Element // of *heldTenant, most recent first
	order  *list.List
	budget int       // new tenants left this minute
	refill time.Time // when the budget is whole again
}

type heldTenant struct {
	id string
	v  *JWTVerifier
}

// newTenantSet checks the template issuer of v and returns its set, or
// records the problem in v's settings.
func newTenantSet(v *JWTVerifier, opts []VerifierOption) *tenantSet {
	issuer := v.cfg.issuer
	rule := v.cfg.tenants
	i := strings.Index(issuer, tenantPlaceholder)
	if i < 0 {
		if rule != nil {
			v.cfg.refuse("Tenants", "is given for an issuer with no "+tenantPlaceholder+": name tenants only for an issuer template")
		}
		return nil
	}
	prefix, suffix := issuer[:i], issuer[i+len(tenantPlaceholder):]
	u, err := url.Parse(strings.Replace(issuer, tenantPlaceholder, "tenant", 1))
	switch {
	case strings.Contains(suffix, tenantPlaceholder):
		v.cfg.refuse("issuer", "has "+tenantPlaceholder+" twice")
	case err != nil || !strings.HasSuffix(prefix, "/") || !(suffix == "" || strings.HasPrefix(suffix, "/")) || !strings.Contains(u.Path, "/tenant"):
		v.cfg.refuse("issuer", "has "+tenantPlaceholder+" outside the path: it must be a whole path segment, e.g. https://login.microsoftonline.com/{tenantid}/v2.0")
	case rule == nil || (!rule.any && len(rule.allowed) == 0):
		v.cfg.refuse("issuer", "is a template ("+tenantPlaceholder+"): name the tenants it may stand for (bearer.Tenants) or allow every tenant (bearer.AnyTenant)")
	case rule.any && len(rule.allowed) > 0:
		v.cfg.refuse("Tenants", "and AnyTenant are both given: choose one")
	}
	if len(v.cfg.problems) > 0 {
		return nil
	}
	s := &tenantSet{prefix: prefix, suffix: suffix, audience: v.cfg.audience, opts: opts, rule: *rule,
		client: v.cfg.httpClient, now: v.cfg.clock, held: map[string]*list.Element{}, order: list.New()}
	if s.client == nil {
		s.client = tenantHTTPClient(urlshape.Loopback(u.Hostname()))
	}
	return s
}

// issuerOf returns the template with tenant in place.
func (s *tenantSet) issuerOf(tenant string) string { return s.prefix + tenant + s.suffix }

// tenantOf returns the tenant iss names under the template, "" when none.
func (s *tenantSet) tenantOf(iss string) string {
	if len(iss) <= len(s.prefix)+len(s.suffix) || !strings.HasPrefix(iss, s.prefix) || !strings.HasSuffix(iss, s.suffix) {
		return ""
	}
	id := iss[len(s.prefix) : len(iss)-len(s.suffix)]
	if !validTenant(id) {
		return ""
	}
	return id
}

// verify hands token to the verifier of the tenant its iss names.
func (s *tenantSet) verify(ctx context.Context, token string, maxSize int, now time.Time, cache *verifyCache) (Principal, error) {
	iss, err := issuerOf(token, maxSize, nil)
	if err != nil {
		return Principal{}, err
	}
	id := s.tenantOf(iss)
	if id == "" || !(s.rule.any || s.rule.allowed[id]) {
		return Principal{}, refuse(ReasonIssuer, fmt.Errorf("%w: iss %s is not a trusted tenant of %s", errUntrustedIssuer, quoteSetting(iss), quoteSetting(s.prefix+tenantPlaceholder+s.suffix)))
	}
	v, err := s.tenant(ctx, id)
	if err != nil {
		return Principal{}, err
	}
	return v.verifyFresh(ctx, token, now, cache)
}

// tenant returns the tenant's verifier, making it (and waiting for its
// first key load, bounded by ctx) when AnyTenant lets a token name it.
func (s *tenantSet) tenant(ctx context.Context, id string) (*JWTVerifier, error) {
	s.mu.Lock()
	if !s.open {
		s.mu.Unlock()
		return nil, fmt.Errorf("%w: the issuer template's verifier is not open", ErrKeysUnavailable)
	}
	if e, ok := s.held[id]; ok {
		s.order.MoveToFront(e)
		v := e.Value.(*heldTenant).v
		s.mu.Unlock()
		if err := s.waitKeys(ctx, v); err != nil {
			return nil, err
		}
		return v, nil
	}
	now := s.now()
	if !now.Before(s.refill) {
		s.budget, s.refill = newTenantsPerMinute, now.Add(time.Minute)
	}
	if s.budget == 0 {
		s.mu.Unlock()
		return nil, fmt.Errorf("%w: %d tenants were discovered this minute, the most AnyTenant allows; tenant %s waits", ErrKeysUnavailable, newTenantsPerMinute, quoteSetting(id))
	}
	s.budget--
	v, evicted, err := s.add(id)
	s.mu.Unlock()
	_ = closeVerifiers(context.Background(), evicted)
	if err != nil {
		return nil, err
	}
	if err := s.waitKeys(ctx, v); err != nil {
		// A tenant that does not answer is not held: a made-up id costs
		// one discovery and no place.
		s.drop(id, v)
		return nil, err
	}
	return v, nil
}

// waitKeys lets the first tokens of a tenant wait for its first key load,
// as a token naming an unknown kid waits for one refresh, bounded by ctx.
func (s *tenantSet) waitKeys(ctx context.Context, v *JWTVerifier) error {
	if v.set.Load() == nil && v.keys != nil {
		v.keys.refresh(ctx, nil)
	}
	return v.Ready()
}

// add makes and opens the verifier of tenant id and holds it; it returns
// the least recently used tenants beyond the bound, for the caller to
// close once s.mu is released. s.mu is held.
func (s *tenantSet) add(id string) (*JWTVerifier, []*JWTVerifier, error) {
	opts := append(s.opts[:len(s.opts):len(s.opts)], HTTPClient(s.client), func(c *verifierConfig) {
		c.tenants, c.tenant = nil, id
	})
	v := New(s.issuerOf(id), s.audience, opts...)
	if err := v.Open(context.Background()); err != nil {
		return nil, nil, err
	}
	s.held[id] = s.order.PushFront(&heldTenant{id: id, v: v})
	var evicted []*JWTVerifier
	for s.order.Len() > maxHeldTenants {
		last := s.order.Back()
		s.order.Remove(last)
		old := last.Value.(*heldTenant)
		delete(s.held, old.id)
		evicted = append(evicted, old.v)
	}
	return v, evicted, nil
}

// drop forgets tenant id's verifier v, if it is still the one held and
// the tenant was not named (a named tenant stays, its keys retried).
func (s *tenantSet) drop(id string, v *JWTVerifier) {
	if s.rule.allowed[id] {
		return
	}
	s.mu.Lock()
	if e, ok := s.held[id]; ok && e.Value.(*heldTenant).v == v {
		s.order.Remove(e)
		delete(s.held, id)
	}
	s.mu.Unlock()
	_ = closeVerifiers(context.Background(), []*JWTVerifier{v})
}

// closeVerifiers stops the key loaders of verifiers no longer held; a
// verification already running on one finishes with the keys it holds.
func closeVerifiers(ctx context.Context, vs []*JWTVerifier) error {
	var errs []error
	for _, v := range vs {
		errs = append(errs, v.Close(ctx))
	}
	return errors.Join(errs...)
}

// openAll opens the set: the verifiers of the tenants named start loading
// their keys now.
func (s *tenantSet) openAll() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.open = true
	for id := range s.rule.allowed {
		if _, _, err := s.add(id); err != nil {
			return fmt.Errorf("tenant %s: %w", quoteSetting(id), err)
		}
	}
	return nil
}

// closeAll closes every tenant's verifier.
func (s *tenantSet) closeAll(ctx context.Context) error {
	s.mu.Lock()
	s.open = false
	var all []*JWTVerifier
	for e := s.order.Front(); e != nil; e = e.Next() {
		all = append(all, e.Value.(*heldTenant).v)
	}
	s.held, s.order = map[string]*list.Element{}, list.New()
	s.mu.Unlock()
	return closeVerifiers(ctx, all)
}

// ready is nil once every tenant named holds keys (for AnyTenant, once
// open: tenants come with tokens).
func (s *tenantSet) ready() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.open {
		return fmt.Errorf("%w: the issuer template's verifier is not open", ErrKeysUnavailable)
	}
	var errs []error
	for e := s.order.Front(); e != nil; e = e.Next() {
		t := e.Value.(*heldTenant)
		if s.rule.allowed[t.id] {
			if err := t.v.Ready(); err != nil {
				errs = append(errs, fmt.Errorf("tenant %s: %w", t.id, err))
			}
		}
	}
	return errors.Join(errs...)
}

// tenantHTTPClient fetches a tenant's documents: a redirect may not leave
// the host, and no connection goes to a private, loopback or link-local
// address unless allowLocal (a template on a loopback host).
func tenantHTTPClient(allowLocal bool) *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	if !allowLocal {
		dialer.Control = dialPublicOnly
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.DialContext = dialer.DialContext
	base := defaultHTTPClient()
	return &http.Client{Transport: transport, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if req.URL.Host != via[0].URL.Host {
			return fmt.Errorf("redirect refused: %s leaves the issuer's host %s", req.URL.Host, via[0].URL.Host)
		}
		return base.CheckRedirect(req, via)
	}}
}

// dialPublicOnly is a net.Dialer's Control for tenant discovery: it refuses
// a connection to a private, loopback, link-local, unspecified or
// multicast address, whatever name resolved to it.
func dialPublicOnly(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip := net.ParseIP(host)
	if ip == nil || ip.IsPrivate() || ip.IsLoopback() || ip.IsLinkLocalUnicast() || ip.IsUnspecified() || ip.IsMulticast() {
		return fmt.Errorf("tenant discovery refused the address %s: not a public address", host)
	}
	return nil
}

// The keySource side of a template: its verifier holds no keys, its
// tenants' verifiers do. Open and Close open and close them, and Ready
// asks them.
var _ keySource = (*tenantSet)(nil)

func (s *tenantSet) start() error                                    { return s.openAll() }
func (s *tenantSet) stop(ctx context.Context) error                  { return s.closeAll(ctx) }
func (s *tenantSet) unavailable() error                              { return s.ready() }
func (s *tenantSet) refresh(_ context.Context, seen *keySet) *keySet { return seen }

// issuers are the issuers of the tenants named, sorted; for AnyTenant,
// the template.
func (s *tenantSet) issuers() []string {
	if s.rule.any {
		// No tenant is named: the template itself stands for them all,
		// as Entra's multi-tenant discovery document writes its issuer.
		return []string{s.issuerOf(tenantPlaceholder)}
	}
	var out []string
	for id := range s.rule.allowed {
		out = append(out, s.issuerOf(id))
	}
	slices.Sort(out)
	return out
}

// scope says which tenants the template stands for, as `check` and the
// start line show it beside the template.
func (s *tenantSet) scope() string {
	if s.rule.any {
		return "any tenant"
	}
	ids := make([]string, 0, len(s.rule.allowed))
	for id := range s.rule.allowed {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if len(ids) == 1 {
		return "tenant " + ids[0]
	}
	return "tenants " + strings.Join(ids, ", ")
}
