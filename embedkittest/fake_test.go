package embedkittest_test

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// fakeTB stands in for a test's testing.TB: it records Error, Errorf,
// Fatal and Fatalf instead of failing, and passes everything else
// (Cleanup, Helper, Name, ...) to the real test it embeds. Fatal stops
// the goroutine, as the real one does: call code that may fail fatally
// through runFake.
type fakeTB struct {
	testing.TB
	mu     sync.Mutex
	errs   []string
	fatals []string
}

func newFake(t *testing.T) *fakeTB { return &fakeTB{TB: t} }

func (f *fakeTB) Error(args ...any) { f.Errorf("%s", fmt.Sprint(args...)) }

func (f *fakeTB) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}

func (f *fakeTB) Fatal(args ...any) { f.Fatalf("%s", fmt.Sprint(args...)) }

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.mu.Lock()
	f.fatals = append(f.fatals, fmt.Sprintf(format, args...))
	f.mu.Unlock()
	runtime.Goexit()
}

func (f *fakeTB) FailNow() { f.Fatalf("FailNow") }

func (f *fakeTB) Fail() { f.Errorf("Fail") }

func (f *fakeTB) Failed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.errs)+len(f.fatals) > 0
}

// errors returns the Errorf messages so far.
func (f *fakeTB) errors() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.errs...)
}

// fatal returns the Fatalf messages so far.
func (f *fakeTB) fatal() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.fatals...)
}

// runFake runs fn with a fakeTB on a goroutine of its own, so that a
// Fatalf ends fn only, and returns the fake once fn is done.
func runFake(t *testing.T, fn func(tb *fakeTB)) *fakeTB {
	t.Helper()
	f := newFake(t)
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(f)
	}()
	<-done
	return f
}

// wantReports checks that f recorded exactly one Errorf per label in
// want, each naming its label and never holding any of the secrets.
func wantReports(t *testing.T, f *fakeTB, want []string, secrets ...string) {
	t.Helper()
	got := f.errors()
	if len(got) != len(want) {
		t.Fatalf("%d failures reported, want %d: %q", len(got), len(want), got)
	}
	for i, label := range want {
		if !strings.Contains(got[i], label) {
			t.Errorf("failure %d is %q, want it to name %q", i, got[i], label)
		}
	}
	for _, msg := range got {
		for _, s := range secrets {
			if s != "" && strings.Contains(msg, s) {
				t.Errorf("the failure message prints the secret itself: %q", msg)
			}
		}
	}
}

// exampleT stands in for the *testing.T of a host app's test, so that the
// package example runs as a program: it prints failures, panics on a
// fatal one, and runs the cleanups when finish is called.
type exampleT struct {
	testing.TB // nil: only the methods below are used
	cleanups   []func()
}

func newExampleT() *exampleT { return &exampleT{} }

func (t *exampleT) Helper()                           {}
func (t *exampleT) Cleanup(f func())                  { t.cleanups = append(t.cleanups, f) }
func (t *exampleT) Errorf(format string, args ...any) { fmt.Printf("FAIL: "+format+"\n", args...) }
func (t *exampleT) Fatal(args ...any)                 { panic(fmt.Sprint(args...)) }
func (t *exampleT) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

// finish runs the cleanups, last registered first, as the testing
// package does when a test ends.
func (t *exampleT) finish() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}
