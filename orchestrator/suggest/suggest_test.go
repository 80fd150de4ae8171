package suggest

import (
	"slices"
	"testing"
)

// Names of a MariaDB 10.11 server, enough to tell suggestions apart.
var mariadbNames = []string{"sync_binlog", "binlog_format", "binlog_cache_size", "binlog_commit_wait_count",
	"innodb_flush_log_at_trx_commit", "innodb_buffer_pool_size", "innodb_log_file_size", "innodb_log_buffer_size",
	"max_connections", "max_user_connections", "sync_frm", "sync_master_info", "log_bin", "log_bin_basename"}

func TestSuggest(t *testing.T) {
	for _, c := range []struct {
		name string
		want []string
	}{
		{"binlog_sync", []string{"sync_binlog"}},
		{"innodb_flush_log_at_trx_comit", []string{"innodb_flush_log_at_trx_commit"}},
		{"innodb_bufer_pool_size", []string{"innodb_buffer_pool_size"}},
		{"max_conections", []string{"max_connections"}},
		{"inodb_log_file_size", []string{"innodb_log_file_size"}},
		{"log_bni", []string{"log_bin"}},
		{"completely_unrelated", nil},
	} {
		if got := Closest(c.name, mariadbNames); !slices.Equal(got, c.want) {
			t.Errorf("Closest(%q) = %q, want %q", c.name, got, c.want)
		}
	}
	if got := DidYouMean([]string{"a"}); got != "; did you mean a?" {
		t.Error(got)
	}
	if got := DidYouMean([]string{"a", "b", "c"}); got != "; did you mean a, b or c?" {
		t.Error(got)
	}
	if DidYouMean(nil) != "" {
		t.Error("no suggestion, no question")
	}
	if d := osaDistance("ab", "ba", 3); d != 1 {
		t.Errorf("a transposition is one edit, got %d", d)
	}
}
