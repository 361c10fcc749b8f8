package svcerrors

import (
	"errors"
	"io"
	"net/http"
	"time"
)

const (
	// arrivedWait is how long a refusal waits for the rest of a body that
	// is already on its way: long enough for the bytes in flight on a
	// fast link, far too short for a body trickled in to hold the
	// connection.
	arrivedWait = 20 * time.Millisecond
	// maxArrived bounds the body a refusal reads, as net/http bounds what
	// it reads after a handler (256 KiB).
	maxArrived = 256 << 10
)

// bodyArrived reads req's body when it has arrived whole within
// arrivedWait and is at most maxArrived, and reports whether it did: the
// connection can then serve the next request. False when the body is
// larger, still arriving, or the connection's read deadline cannot be set
// (a ResponseWriter that is not the server's): the connection must then
// close.
func bodyArrived(w http.ResponseWriter, req *http.Request) bool {
	rc := http.NewResponseController(w)
	if rc.SetReadDeadline(time.Now().Add(arrivedWait)) != nil {
		return false
	}
	n, err := io.CopyN(io.Discard, req.Body, maxArrived+1)
	if !errors.Is(err, io.EOF) || n > maxArrived {
		return false
	}
	// The deadline would otherwise end the server's wait for the next
	// request on this connection.
	return rc.SetReadDeadline(time.Time{}) == nil
}

// closeAfterAnswer makes net/http give up the unread rest of a body at
// once, so that the connection closes as soon as the answer is written
// instead of when the body has trickled in or the read timeout ends.
func closeAfterAnswer(w http.ResponseWriter) {
	_ = http.NewResponseController(w).SetReadDeadline(time.Unix(1, 0))
}
