package flavor

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// prefixSession fails every statement the way MariaDB 10.11 fails a
// CHANGE MASTER TO with a password over 96 characters: error 1470,
// ER_TOO_LONG_STRING, which quotes the start of the value and "...".
type prefixSession struct{ password string }

func (p prefixSession) Exec(context.Context, ...string) error {
	return errors.New("Error 1470 (HY000): String '" + p.password[:68] + "...' is too long for MASTER_PASSWORD (should be no longer than 96)")
}
func (prefixSession) Query(context.Context, string) ([][]string, error) {
	return [][]string{{"1"}}, nil
}

func TestRunScrubsAQuotedPrefixOfTheSecret(t *testing.T) {
	pw := strings.Repeat("Zq8-hunter2-", 8) // 96 characters
	st := Statement{SQL: "CHANGE MASTER TO MASTER_PASSWORD = '" + pw + "'", Redacted: "CHANGE MASTER TO MASTER_PASSWORD = '<redacted>'", Secret: true, secrets: []string{pw}}
	err := Run(context.Background(), prefixSession{pw}, []Statement{st})
	if err == nil {
		t.Fatal("no error")
	}
	if strings.Contains(err.Error(), pw[:16]) {
		t.Fatalf("the password's first characters are in the error: %v", err)
	}
	if !strings.Contains(err.Error(), "String '<redacted>' is too long for MASTER_PASSWORD") {
		t.Fatalf("error %q: want the server's reason kept", err)
	}
}

func TestScrubKeepsOtherQuotedText(t *testing.T) {
	msg := scrub("Unknown system variable 'rpl_x' for user 'repl'...", []string{"Zq8-hunter2-Zq8", "repl-password"})
	if msg != "Unknown system variable 'rpl_x' for user 'repl'..." {
		t.Fatalf("scrub changed unrelated text: %q", msg)
	}
	if got := scrub("String 'Zq8-hu' is too long", []string{"Zq8-hunter2-Zq8"}); got != "String 'Zq8-hu' is too long" {
		t.Fatalf("a short quoted word that happens to start the secret: %q", got)
	}
	if got := scrub("String 'Zq8-hu...' is too long", []string{"Zq8-hunter2-Zq8"}); got != "String '<redacted>' is too long" {
		t.Fatalf("a cut-short secret: %q", got)
	}
}
