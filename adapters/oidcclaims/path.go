package oidcclaims

import (
	"errors"
	"fmt"
	"strings"
)

// claimPath is a parsed claim name: the segments between unescaped dots.
type claimPath struct {
	name     string
	segments []string
}

// parsePath parses a claim name as written in a Mapping. An unescaped dot
// separates segments; `\.` is a literal dot and `\\` a literal backslash.
func parsePath(name string) (claimPath, error) {
	if name == "" {
		return claimPath{}, errors.New("empty claim name")
	}
	var (
		segs []string
		cur  strings.Builder
	)
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch c {
		case '\\':
			if i+1 == len(name) {
				return claimPath{}, errors.New(`trailing backslash; write \\ for a literal backslash`)
			}
			next := name[i+1]
			if next != '.' && next != '\\' {
				return claimPath{}, fmt.Errorf(`unknown escape \%c; only \. and \\ are allowed`, next)
			}
			cur.WriteByte(next)
			i++
		case '.':
			if cur.Len() == 0 {
				return claimPath{}, errors.New("empty path segment")
			}
			segs = append(segs, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	if cur.Len() == 0 {
		return claimPath{}, errors.New("empty path segment")
	}
	segs = append(segs, cur.String())
	return claimPath{name: name, segments: segs}, nil
}

// lookup finds the claim. At each level of the claims it takes the
// longest run of the remaining segments that, joined with dots, is a key of
// the object there, and descends into it. A JSON null counts as absent. An
// intermediate value that is present but not an object is an error: the
// claim has another shape than the mapping expects.
func (p claimPath) lookup(claims map[string]any) (any, bool, error) {
	obj := claims
	rest := p.segments
	for {
		var (
			val   any
			found bool
			n     int
		)
		for n = len(rest); n > 0; n-- {
			if v, ok := obj[strings.Join(rest[:n], ".")]; ok {
				val, found = v, true
				break
			}
		}
		if !found || val == nil {
			return nil, false, nil
		}
		if n == len(rest) {
			return val, true, nil
		}
		next, ok := val.(map[string]any)
		if !ok {
			return nil, false, fmt.Errorf("%q: want object, got %s", strings.Join(p.segments[:len(p.segments)-len(rest)+n], "."), typeName(val))
		}
		obj, rest = next, rest[n:]
	}
}
