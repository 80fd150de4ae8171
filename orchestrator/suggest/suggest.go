// Package suggest finds the names a mistyped one most likely meant, for
// "did you mean" in errors: server variables, command-line flags and
// inventory keys alike.
package suggest

import (
	"slices"
	"sort"
	"strings"
)

// Closest returns the known names closest to name, best first (at most
// three). Two measures, because the mistakes differ in kind: the same
// words in another order (binlog_sync for sync_binlog: an edit distance of
// 8, yet obviously meant) and typing slips (innodb_flush_log_at_trx_comit),
// measured by optimal-string-alignment distance.
func Closest(name string, known []string) []string {
	type cand struct {
		name  string
		score int
	}
	limit := max(2, len(name)/5)
	words := sortedWords(name)
	var cs []cand
	for _, k := range known {
		if k == name {
			continue
		}
		if slices.Equal(words, sortedWords(k)) {
			cs = append(cs, cand{k, 0})
			continue
		}
		if d := osaDistance(name, k, limit); d <= limit {
			cs = append(cs, cand{k, d})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].score != cs[j].score {
			return cs[i].score < cs[j].score
		}
		return cs[i].name < cs[j].name
	})
	var out []string
	for _, c := range cs {
		if len(out) == 3 || c.score > cs[0].score+1 {
			break
		}
		out = append(out, c.name)
	}
	return out
}

// DidYouMean phrases suggestions: "; did you mean a?", "; did you mean a
// or b?", "; did you mean a, b or c?"; "" when there are none.
func DidYouMean(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return "; did you mean " + names[0] + "?"
	}
	return "; did you mean " + strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1] + "?"
}

func sortedWords(s string) []string {
	w := strings.FieldsFunc(s, func(r rune) bool { return r == '_' || r == '-' })
	sort.Strings(w)
	return w
}

// osaDistance is the optimal string alignment distance (Levenshtein plus
// adjacent transpositions) between a and b, or limit+1 as soon as it is
// known to exceed limit.
func osaDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
