package authn

import (
	"fmt"
	"testing"
	"time"
)

// Under an address-spraying attack the record limiter neither grows past
// its bound nor writes a record per address: new addresses share one count
// per kind while every remembered slot is live.
func TestRecordLimiterStaysBoundedUnderSpraying(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := newRecordLimiter(func() time.Time { return now })
	written := 0
	for i := 0; i < 3*maxRecordKeys; i++ {
		if ok, _ := l.allow("signature", fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)); ok {
			written++
		}
	}
	if len(l.slots) > maxRecordKeys+1 || l.order.Len() > maxRecordKeys+1 {
		t.Fatalf("%d slots remembered, bound %d", len(l.slots), maxRecordKeys)
	}
	// maxRecordKeys distinct addresses, then one shared record.
	if written != maxRecordKeys+1 {
		t.Fatalf("%d records written, want %d", written, maxRecordKeys+1)
	}
	// A minute later old slots are recycled: new addresses are written again.
	now = now.Add(recordWindow)
	if ok, _ := l.allow("signature", "192.0.2.1"); !ok {
		t.Fatal("a new address was not written after the window")
	}
	if len(l.slots) > maxRecordKeys+1 {
		t.Fatalf("%d slots", len(l.slots))
	}
}
