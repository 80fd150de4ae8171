package topology

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// A secret is only as private as the file it is read from: a password file
// another user made (or can read, or can replace) is theirs, not the
// invoking user's, and a password orch reads from it would be one they
// know. So every secret file, and orch's state directories, must belong to
// the invoking user and give the group and others no access at all.

// ReadPrivate reads a secret file that passes CheckPrivate, checking the
// file it opened (not the name again, which could be swapped in between).
func ReadPrivate(what, path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("secret: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("secret: %w", err)
	}
	if err := checkPrivate(what, path, fi); err != nil {
		return nil, err
	}
	return io.ReadAll(f)
}

// CheckPrivateNoFollow refuses path unless it is owned by the invoking
// user, gives no access to group or others, and is not a symlink (orch's
// state directory and the files it makes there); what names it in the
// error. A secret file the inventory names may be a link (to /run/secrets,
// say): ReadPrivate checks the file it opened.
func CheckPrivateNoFollow(what, path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s %s is a symlink: orch uses only its own files there, never a link someone may have planted", what, path)
	}
	return checkPrivate(what, path, fi)
}

func checkPrivate(what, path string, fi fs.FileInfo) error {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		if me := os.Geteuid(); int(st.Uid) != me {
			return fmt.Errorf("%s %s is owned by uid %d, not by you (uid %d): orch never uses a secret someone else can have planted; remove it or point orch elsewhere", what, path, st.Uid, me)
		}
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		want := "600"
		if fi.IsDir() {
			want = "700"
		}
		return fmt.Errorf("%s %s has mode %04o, which lets others at it: chmod %s %s", what, path, perm, want, path)
	}
	return nil
}
