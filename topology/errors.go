package topology

import (
	"errors"
	"fmt"
	"strings"
)

// MaxErrors is how many problems of one inventory an error names; the
// rest are counted, so a file with thousands of bad hosts still gets a
// message that fits a screen.
const MaxErrors = 20

// Errors are the problems found in one inventory, in file order: each is
// one line, FILE:LINE[:COL]: message. Load returns it when a file has more
// than one problem (a single problem is a plain *Error), so a user fixes
// every problem after one run instead of one per run.
type Errors struct {
	list  []error // at most MaxErrors
	total int
}

func (e *Errors) Error() string {
	lines := make([]string, 0, len(e.list)+1)
	for _, err := range e.list {
		lines = append(lines, err.Error())
	}
	if more := e.total - len(e.list); more > 0 {
		lines = append(lines, fmt.Sprintf("... and %d more problems", more))
	}
	return strings.Join(lines, "\n")
}

// Unwrap lets errors.As find the first *Error.
func (e *Errors) Unwrap() []error { return e.list }

// Len is the number of problems, named or counted.
func (e *Errors) Len() int { return e.total }

// joinErrors gathers errs (nil ones skipped, *Errors flattened) in order:
// nil when there are none, the error itself when there is one, else an
// *Errors.
func joinErrors(errs ...error) error {
	out := &Errors{}
	var only error
	for _, err := range errs {
		var many *Errors
		switch {
		case err == nil:
			continue
		case errors.As(err, &many) && many == err:
			for _, e := range many.list {
				out.add(e)
			}
			out.total += many.total - len(many.list)
		default:
			out.add(err)
		}
		only = err
	}
	switch out.total {
	case 0:
		return nil
	case 1:
		return only
	}
	return out
}

func (e *Errors) add(err error) {
	if len(e.list) < MaxErrors {
		e.list = append(e.list, err)
	}
	e.total++
}

// eachError applies fn to every problem of err (one, or each of an
// *Errors), keeping the count of those not named.
func eachError(err error, fn func(error) error) error {
	var many *Errors
	if !errors.As(err, &many) || many != err {
		return fn(err)
	}
	out := &Errors{total: many.total}
	for _, e := range many.list {
		out.list = append(out.list, fn(e))
	}
	return out
}
