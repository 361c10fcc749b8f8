package bans_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/svckit/svc/modules/authn/bans"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) add(d time.Duration)     { c.t = c.t.Add(d) }
func newClock() *clock                   { return &clock{t: time.Unix(1_700_000_000, 0)} }
func banned(b *bans.Bans, a string) bool { _, ok := b.Banned(a); return ok }

func TestThresholdWithinTheWindowStartsOneBan(t *testing.T) {
	c := newClock()
	b := bans.New(bans.Threshold(3), bans.Window(time.Minute), bans.Duration(10*time.Minute), bans.Clock(c.now))
	for i := 0; i < 2; i++ {
		if _, started := b.Fail("1.2.3.4"); started {
			t.Fatal("ban before the threshold")
		}
	}
	s, started := b.Fail("1.2.3.4")
	if !started || s.Failures != 3 || s.Duration != 10*time.Minute || !s.Until.Equal(c.t.Add(10*time.Minute)) {
		t.Fatalf("%+v %v", s, started)
	}
	if _, again := b.Fail("1.2.3.4"); again {
		t.Fatal("a banned caller started a second ban")
	}
	if rem, ok := b.Banned("1.2.3.4"); !ok || rem != 10*time.Minute {
		t.Fatalf("%v %v", rem, ok)
	}
	if banned(b, "5.6.7.8") || b.Active() != 1 {
		t.Fatal("other address banned or wrong active count")
	}
	c.add(10 * time.Minute)
	if banned(b, "1.2.3.4") || b.Active() != 0 {
		t.Fatal("ban outlived its duration")
	}
}

func TestFailuresOutsideTheWindowDoNotCount(t *testing.T) {
	c := newClock()
	b := bans.New(bans.Threshold(3), bans.Window(time.Minute), bans.Clock(c.now))
	b.Fail("a")
	b.Fail("a")
	c.add(61 * time.Second)
	if _, started := b.Fail("a"); started {
		t.Fatal("failures older than the window counted")
	}
}

func TestDefaults(t *testing.T) {
	b := bans.New(bans.Threshold(0), bans.Window(-1), bans.Name(""))
	if b.Name() != "default" {
		t.Fatal(b.Name())
	}
	for i := 1; i < 5; i++ { // the documented default threshold
		if _, s := b.Fail("x"); s {
			t.Fatalf("banned after %d", i)
		}
	}
	if _, s := b.Fail("x"); !s {
		t.Fatal("not banned at the default threshold")
	}
}

func TestMemoryIsBoundedAndBansSurviveSpraying(t *testing.T) {
	c := newClock()
	b := bans.New(bans.Threshold(2), bans.MaxTracked(100), bans.Clock(c.now))
	b.Fail("forger")
	b.Fail("forger") // banned
	for i := 0; i < 10_000; i++ {
		b.Fail(fmt.Sprintf("10.0.%d.%d", i/256, i%256))
	}
	if !banned(b, "forger") {
		t.Fatal("spraying evicted an active ban")
	}
	if b.Active() != 1 {
		t.Fatalf("%d active bans, want 1", b.Active())
	}
	// A table full of bans still stays within its bound.
	all := bans.New(bans.Threshold(1), bans.MaxTracked(100), bans.Clock(c.now))
	for i := 0; i < 1_000; i++ {
		all.Fail(fmt.Sprintf("10.1.%d.%d", i/256, i%256))
	}
	if all.Active() != 100 {
		t.Fatalf("%d bans tracked, want the bound of 100", all.Active())
	}
}
