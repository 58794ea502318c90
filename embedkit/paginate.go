package embedkit

import "iter"

// pager fetches the next page of a list: its items, and whether another
// page follows. It keeps its own position (an offset or a cursor) and
// advances it on each call.
type pager[T any] func() (items []T, more bool, err error)

// paginate iterates over every item of a paginated list, page by page.
// start returns a pager at the first page; it is called once for each
// iteration, so that ranging over the result twice starts over. The
// iteration stops at the first error, which it yields.
func paginate[T any](start func() pager[T]) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		next := start()
		for {
			items, more, err := next()
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, it := range items {
				if !yield(it, nil) {
					return
				}
			}
			if !more {
				return
			}
		}
	}
}
