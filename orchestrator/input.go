package orchestrator

import (
	"errors"
	"fmt"
)

// InputError is bad input found by a use case (a plan that cannot run, a
// profile the inventory lacks) before any host is contacted: the command
// exits with status 2, as for a bad flag.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// BadInput wraps err as an InputError (nil stays nil).
func BadInput(err error) error {
	if err == nil {
		return nil
	}
	return &InputError{Err: err}
}

// BadInputf is BadInput of a formatted message.
func BadInputf(format string, args ...any) error {
	return &InputError{Err: fmt.Errorf(format, args...)}
}

// IsBadInput reports whether err is (or wraps) an InputError.
func IsBadInput(err error) bool {
	var e *InputError
	return errors.As(err, &e)
}
