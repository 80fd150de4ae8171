package analyse

import (
	"testing"
)

// TestStackShare: a stack's share comes with its Wilson interval and the
// counts (values from the Wilson formula worked by hand: 70 of 258 is
// 27.1%, interval 22.07%-32.86%; 0 of 150 is 0 to 2.5%; 150 of 150 is
// 97.5% to 100%).
func TestStackShare(t *testing.T) {
	for _, c := range []struct {
		k, n int
		want string
	}{
		{70, 258, "27.1% [22.1%, 32.9%] (70/258)"},
		{0, 150, "0.0% [0.0%, 2.5%] (0/150)"},
		{150, 150, "100.0% [97.5%, 100.0%] (150/150)"},
		{1, 0, "—"},
	} {
		if got := StackShare(c.k, c.n); got != c.want {
			t.Errorf("stackShare(%d, %d) = %q, want %q", c.k, c.n, got, c.want)
		}
	}
}
