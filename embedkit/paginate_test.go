package embedkit

import (
	"errors"
	"slices"
	"testing"
)

// TestPaginate holds the iterator every list shares to its contract: every
// item of every page in order, a new start for each range, an early stop
// that fetches no further page, and the first error yielded last.
func TestPaginate(t *testing.T) {
	errBoom := errors.New("boom")
	tests := []struct {
		name      string
		pages     [][]int
		failAt    int // page index whose fetch fails; -1 for none
		stopAfter int // items taken before breaking; 0 for all
		want      []int
		wantErr   error
		wantCalls int
	}{
		{name: "every item of every page", pages: [][]int{{1, 2}, {3}, {4, 5}}, failAt: -1, want: []int{1, 2, 3, 4, 5}, wantCalls: 3},
		{name: "an empty list", pages: [][]int{{}}, failAt: -1, want: nil, wantCalls: 1},
		{name: "a failing page ends it with its error", pages: [][]int{{1, 2}, {3}}, failAt: 1, want: []int{1, 2}, wantErr: errBoom, wantCalls: 2},
		{name: "a break fetches no further page", pages: [][]int{{1, 2}, {3}}, failAt: -1, stopAfter: 2, want: []int{1, 2}, wantCalls: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			seq := paginate(func() pager[int] {
				i := 0
				return func() ([]int, bool, error) {
					calls++
					if i == tt.failAt {
						return nil, false, errBoom
					}
					items := tt.pages[i]
					i++
					return items, i < len(tt.pages), nil
				}
			})
			for range 2 { // a second range starts over
				calls = 0
				var got []int
				var gotErr error
				for v, err := range seq {
					if err != nil {
						gotErr = err
						continue
					}
					got = append(got, v)
					if tt.stopAfter > 0 && len(got) == tt.stopAfter {
						break
					}
				}
				if !slices.Equal(got, tt.want) || !errors.Is(gotErr, tt.wantErr) || calls != tt.wantCalls {
					t.Errorf("got %v, %v in %d fetches; want %v, %v in %d", got, gotErr, calls, tt.want, tt.wantErr, tt.wantCalls)
				}
			}
		})
	}
}
