package idempotency

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/svckit/svc/internal/behind"
	svcerrors "github.com/svckit/svc/modules/errors"
	"github.com/svckit/svc/modules/store"
)

// Required is a marker middleware: a write to the routes it guards must
// carry an Idempotency-Key (else 400 idempotency-key-invalid). Use it with
// chi's r.With, r.Use and r.Group, wrap a ServeMux handler in it, or pass
// it to authnhuma.Use on a Huma operation (authnhuma.Group on a group). Put
// authn.Require before it (outer): the gate refuses at install a route
// where Required wraps authn.Require. Safe methods (GET, HEAD, OPTIONS,
// TRACE) pass through untouched.
func Required() func(http.Handler) http.Handler {
	return behind.MarkerOf("idempotency.Required", "idempotency=required", func(b behind.Marker) *marker {
		return &marker{Marker: b, required: true}
	})
}

// Optional is a marker middleware: a write that carries an
// Idempotency-Key is made idempotent; one without runs as usual.
func Optional() func(http.Handler) http.Handler {
	return behind.MarkerOf("idempotency.Optional", "idempotency=optional", func(b behind.Marker) *marker {
		return &marker{Marker: b}
	})
}

type marker struct {
	behind.Marker
	required bool
}

// space is the store space of every idempotency record.
const space = "idempotency"

func (m *marker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c := componentFor(r)
	if behind.Safe(r.Method) || !c.paths.Applies(r) || behind.Unrouted(r) {
		m.Next.ServeHTTP(w, r)
		return
	}
	key, present, valid := readKey(r.Header)
	switch {
	case !present && !m.required:
		m.Next.ServeHTTP(w, r)
		return
	case !present || !valid:
		behind.Refuse(w, r, &keyInvalid{})
		return
	}
	owner, subject, authenticated := behind.Caller(r)
	if !authenticated {
		owner, subject = behind.AnonymousOwner, ""
	} else if c.sharedKeys {
		// Keys not scoped by caller: replaying could hand one caller
		// another's response.
		m.Next.ServeHTTP(w, r)
		return
	}
	body, ok := c.readBody(w, r)
	if !ok {
		return
	}
	c.serve(w, r, m.Next, store.Key{Space: space, Owner: owner, ID: subject + "\n" + key}, fingerprint(r, body))
}

// readBody reads the body to fingerprint it, refusing one over the bound
// before the handler runs, and gives the handler a fresh reader.
func (c *Component) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if r.ContentLength > c.maxBody {
		behind.Refuse(w, r, &bodyTooLarge{})
		return nil, false
	}
	if r.Body == nil || r.Body == http.NoBody {
		return nil, true
	}
	var body []byte
	var err error
	if r.ContentLength > 0 {
		// The length is known and within the bound: one exact buffer.
		body = make([]byte, r.ContentLength)
		_, err = io.ReadFull(r.Body, body)
	} else {
		body, err = io.ReadAll(io.LimitReader(r.Body, c.maxBody+1))
	}
	_ = r.Body.Close()
	if int64(len(body)) > c.maxBody {
		behind.Refuse(w, r, &bodyTooLarge{})
		return nil, false
	}
	if err != nil {
		// The client went away or sent a broken body: nothing to run.
		http.Error(w, http.StatusText(http.StatusBadRequest), http.StatusBadRequest)
		return nil, false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body, true
}

// serve runs the first request under a key, replays a completed one and
// refuses a duplicate of the one in flight, after waiting for it when
// [Wait] allows.
func (c *Component) serve(w http.ResponseWriter, r *http.Request, next http.Handler, k store.Key, fp string) {
	owner := newOwner()
	ctx := r.Context()
	end, _ := ctx.Deadline()
	deadline := time.Now().Add(c.wait)
	poll := c.pollInitial
	for {
		claim, err := c.records.Claim(ctx, k, fp, owner, c.leaseUntil(end))
		if err != nil {
			// The claim may have been made and only its answer lost (a
			// timeout, a failover): release it, or a retry would meet it
			// in flight until its lease ends.
			_ = c.records.Release(context.WithoutCancel(ctx), k, owner)
			behind.Refuse(w, r, fmt.Errorf("idempotency: the record store failed: %w", err))
			return
		}
		switch claim.State {
		case store.Claimed:
			c.runFirst(w, r, next, k, owner)
			return
		case store.Done:
			replay(w, claim.Response)
			return
		case store.Mismatch:
			behind.Refuse(w, r, &svcerrors.IdempotencyConflict{})
			return
		}
		// In flight: wait for the first request, up to the bound (by
		// default none).
		left := time.Until(deadline)
		if left <= 0 {
			behind.Refuse(w, r, &svcerrors.IdempotencyWaitTimeout{RetryAfter: time.Second})
			return
		}
		t := time.NewTimer(min(poll, left))
		select {
		case <-ctx.Done():
			t.Stop()
			return // the client is gone; nobody to answer
		case <-t.C:
		}
		poll = min(2*poll, 100*time.Millisecond)
	}
}

// runFirst runs the handler as the key's owner, renewing its claim while
// it runs, and stores its response. A handler that panics, a client that
// disconnects, a response that is not worth replaying and a response the
// store failed to keep release the key instead, so that a retry runs.
func (c *Component) runFirst(w http.ResponseWriter, r *http.Request, next http.Handler, k store.Key, owner string) {
	rec := &behind.Recorder{ResponseWriter: w, Status: http.StatusOK, Max: maxStoredResponse}
	// The store is told on a context the client cannot cancel: the record
	// must be completed or released whatever happened to the request.
	bg := context.WithoutCancel(r.Context())
	completed := false
	stopRenewing := c.renewWhileRunning(r.Context(), k, owner)
	defer func() {
		stopRenewing()
		if !completed {
			_ = c.records.Release(bg, k, owner)
		}
	}()
	// What outer middlewares set for this request (its request ID) is not
	// the route's response: a replay keeps the retry's own.
	outer := w.Header().Clone()
	next.ServeHTTP(rec, r)
	stopRenewing()
	if r.Context().Err() != nil || rec.Overflow || !replayable(rec.Status) {
		return
	}
	resp := store.Response{Status: rec.Status, Header: behind.StoredHeader(rec.Header(), outer), Body: rec.Body.Bytes()}
	if err := c.records.Complete(bg, k, owner, resp, c.ttl); err != nil {
		return
	}
	completed = true
}

// replayable tells which answers are stored: not a server error, and not
// a refusal that says the request was not processed (401, 403, 408, 425,
// 429), so that a retry then runs the handler.
func replayable(status int) bool {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusRequestTimeout, http.StatusTooEarly, http.StatusTooManyRequests:
		return false
	}
	return status < 500
}

func replay(w http.ResponseWriter, resp *store.Response) {
	h := w.Header()
	for k, vs := range resp.Header {
		// Copied: the stored slices are shared with later replays.
		h[k] = append([]string(nil), vs...)
	}
	h.Set(HeaderReplayed, "true")
	w.WriteHeader(resp.Status)
	_, _ = w.Write(resp.Body)
}

// ownerPrefix tells this process's owner tokens from other replicas';
// the counter tells its requests apart without a random read each.
var (
	ownerPrefix = func() string {
		var b [12]byte
		_, _ = rand.Read(b[:])
		return hex.EncodeToString(b[:]) + "-"
	}()
	ownerCount atomic.Uint64
)

func newOwner() string {
	return ownerPrefix + strconv.FormatUint(ownerCount.Add(1), 36)
}

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// Refusals lists what the marker answers, for API documents
// (document_idempotency).
func (m *marker) Refusals() []svcerrors.Rejection {
	return []svcerrors.Rejection{&keyInvalid{}, &bodyTooLarge{},
		&svcerrors.IdempotencyConflict{}, &svcerrors.IdempotencyWaitTimeout{}}
}

// APIDoc tells API documents the Idempotency-Key a write reads and the
// Idempotent-Replayed a replay carries; a safe method passes untouched.
func (m *marker) APIDoc(method string) behind.APIDoc {
	if behind.Safe(method) {
		return behind.APIDoc{}
	}
	key := "Makes the write idempotent: a retry with the same key and payload gets the first answer again (draft-ietf-httpapi-idempotency-key-header)."
	if m.required {
		key = "Required: " + key
	}
	return behind.APIDoc{
		Params:  []behind.Header{{Name: HeaderKey, Description: key, Required: m.required}},
		Headers: []behind.Header{{Name: HeaderReplayed, Description: "\"true\" on an answer replayed for a repeated Idempotency-Key."}},
	}
}
