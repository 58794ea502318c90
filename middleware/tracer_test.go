package middleware

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/embedkit/embedkit/embedkit"
)

// recordingTracer records the spans the kit starts and ends.
type recordingTracer struct {
	mu    sync.Mutex
	spans []*recordedSpan
}

type spanKey struct{}

type recordedSpan struct {
	op      Operation
	ended   int
	outcome Outcome
	err     error
}

func (tr *recordingTracer) Start(ctx context.Context, op Operation) (context.Context, Span) {
	s := &recordedSpan{op: op}
	tr.mu.Lock()
	tr.spans = append(tr.spans, s)
	tr.mu.Unlock()
	return context.WithValue(ctx, spanKey{}, s), &endOnce{tr: tr, s: s}
}

type endOnce struct {
	tr *recordingTracer
	s  *recordedSpan
}

func (e *endOnce) End(outcome Outcome, err error) {
	e.tr.mu.Lock()
	defer e.tr.mu.Unlock()
	e.s.ended++
	e.s.outcome, e.s.err = outcome, err
}

func (tr *recordingTracer) snapshot() []recordedSpan {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	out := make([]recordedSpan, len(tr.spans))
	for i, s := range tr.spans {
		out[i] = *s
	}
	return out
}

// TestTracer: every mint and every revoke attempt is one span, ended once
// with the outcome the metrics see; the platform is called under the
// span's context, so a tracing transport nests its requests there.
func TestTracer(t *testing.T) {
	t.Run("mint outcomes", func(t *testing.T) {
		for _, tc := range []struct {
			name    string
			path    string
			err     error
			want    Outcome
			wantErr bool
		}{
			{"ok", "/embed/frame/sales", nil, OutcomeOK, false},
			{"denied by policy", "/embed/frame/app", nil, OutcomeDenied, true},
			{"platform down", "/embed/frame/sales", &embedkit.APIError{StatusCode: http.StatusServiceUnavailable, RequestID: "req-42"}, OutcomeUnavailable, true},
		} {
			t.Run(tc.name, func(t *testing.T) {
				tr := &recordingTracer{}
				tk := newTestKit(t, func(c *Config) { c.Tracer = tr })
				tk.platform.generateErr = tc.err
				serve(tk.FrameHandler(), request(http.MethodGet, tc.path, "ana"))
				spans := tr.snapshot()
				if len(spans) != 1 || spans[0].op != OpMint || spans[0].ended != 1 {
					t.Fatalf("spans %+v, want one mint span ended once", spans)
				}
				if spans[0].outcome != tc.want || (spans[0].err != nil) != tc.wantErr {
					t.Errorf("span ended with %s, %v; want %s (error %v)", spans[0].outcome, spans[0].err, tc.want, tc.wantErr)
				}
				if apiErr, ok := errors.AsType[*embedkit.APIError](spans[0].err); tc.err != nil && (!ok || apiErr.RequestID != "req-42") {
					t.Errorf("the span's error does not carry the platform's answer: %v", spans[0].err)
				}
			})
		}
	})

	t.Run("revokes under their spans", func(t *testing.T) {
		tr := &recordingTracer{}
		tk := newTestKit(t, func(c *Config) { c.Tracer = tr })
		mintFor(t, tk, "ana", 3)
		serve(tk.Logout(&hostLogout{}), request(http.MethodPost, "/logout", "ana"))
		spans := tr.snapshot()
		var mints, revokes int
		for _, s := range spans {
			if s.ended != 1 || s.outcome != OutcomeOK {
				t.Errorf("span %s ended %d times with %s", s.op, s.ended, s.outcome)
			}
			switch s.op {
			case OpMint:
				mints++
			case OpRevoke:
				revokes++
			}
		}
		if mints != 3 || revokes != 3 {
			t.Errorf("%d mint and %d revoke spans, want 3 and 3", mints, revokes)
		}
		tk.platform.mu.Lock()
		defer tk.platform.mu.Unlock()
		for i, ctx := range tk.platform.ctxs {
			s, ok := ctx.Value(spanKey{}).(*recordedSpan)
			if !ok || !slices.ContainsFunc(tr.spans, func(x *recordedSpan) bool { return x == s }) {
				t.Errorf("platform call %d ran outside a span", i)
			}
		}
	})
}
