package flavor

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"text/template/parse"
)

// The flavour grep of issue 16: server flavour differences live in this
// package's table, so no other code compares a value with a flavour's name
// or branches on it, and no profile template asks which flavour it renders
// for (it gets values from the table instead). "mysql" is also a directory,
// a binary, a system schema and an import path: the scan looks only at
// comparisons and branches (==, !=, case, strings.EqualFold/HasPrefix/...,
// map lookups by a flavour's name, the same with flavor.MariaDB... instead
// of a string, and template if/with/range on .Flavor), which
// is where a flavour rule would hide.

// leakAllowed are the documented exceptions: a file and the literal it
// may compare with, and why that is no flavour rule.
var leakAllowed = map[[2]string]string{
	{"topology/yaml.go", "mysql"}: "the inventory's mysql: section (defaults.mysql, hosts[].mysql) is a YAML key, not a flavour",
	{"orchestrator/internal/fakemaria/host.go", "mariadb"}: "the fake MariaDB server reads the [mariadb] option group as MariaDB's manual says; " +
		"a fake writes its own names rather than take them from the table it is there to test",
}

// flavorWords are the names a comparison must not test for.
var flavorWords = []string{string(MariaDB), string(MySQL), string(Percona)}

// isFlavorWord reports whether literal (a Go or template string) names a
// flavour: a flavour's name in any case ("MariaDB", "-MariaDB" as version
// strings end), a flavour-and-version key ("mysql-8", "percona:5.7") or
// "Percona Server". Binaries, paths and schemas that begin with a name
// ("mariadb-slap", "mysql.user", "-mysql.csv") are not.
func isFlavorWord(literal string) bool {
	l := strings.TrimLeft(strings.ToLower(strings.TrimSpace(literal)), "-")
	for _, w := range flavorWords {
		rest, ok := strings.CutPrefix(l, w)
		switch {
		case !ok:
		case rest == "", rest == " server":
			return true
		case len(rest) >= 2 && strings.ContainsRune("-: ", rune(rest[0])) && rest[1] >= '0' && rest[1] <= '9':
			return true
		}
	}
	return false
}

// comparingFuncs are the strings functions that test a value against
// another: a flavour literal among their arguments is a comparison.
var comparingFuncs = map[string]bool{
	"EqualFold": true, "HasPrefix": true, "HasSuffix": true, "Contains": true, "ContainsAny": true,
	"Index": true, "LastIndex": true, "Count": true, "Cut": true, "CutPrefix": true, "CutSuffix": true,
	"TrimPrefix": true, "TrimSuffix": true, "Compare": true,
}

// flavorLiteral returns the flavour e names: a string literal naming one,
// or one of this package's constants (flavor.MariaDB...).
func flavorLiteral(e ast.Expr) (string, bool) {
	if sel, ok := ast.Unparen(e).(*ast.SelectorExpr); ok {
		pkg, ok := sel.X.(*ast.Ident)
		if ok && pkg.Name == "flavor" && IsFlavor(strings.ToLower(sel.Sel.Name)) {
			return "flavor." + sel.Sel.Name, true
		}
		return "", false
	}
	lit, ok := ast.Unparen(e).(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	if err != nil || !isFlavorWord(s) {
		return "", false
	}
	return s, true
}

// goLeaks lists a file's comparisons and branches on flavour names.
func goLeaks(fset *token.FileSet, f *ast.File) []string {
	var out []string
	report := func(n ast.Node, what, lit string) {
		out = append(out, fset.Position(n.Pos()).String()+": "+what+" "+strconv.Quote(lit))
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if n.Op != token.EQL && n.Op != token.NEQ {
				break
			}
			for _, side := range []ast.Expr{n.X, n.Y} {
				if s, ok := flavorLiteral(side); ok {
					report(n, "comparison with", s)
				}
			}
		case *ast.CaseClause:
			for _, e := range n.List {
				if s, ok := flavorLiteral(e); ok {
					report(e, "case", s)
				}
			}
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok {
				break
			}
			if pkg, ok := sel.X.(*ast.Ident); !ok || (pkg.Name != "strings" && pkg.Name != "bytes") || !comparingFuncs[sel.Sel.Name] {
				break
			}
			for _, a := range n.Args {
				if s, ok := flavorLiteral(a); ok {
					report(n, pkgCall(sel)+" with", s)
				}
			}
		case *ast.IndexExpr:
			if s, ok := flavorLiteral(n.Index); ok {
				report(n, "lookup by", s)
			}
		}
		return true
	})
	return out
}

func pkgCall(sel *ast.SelectorExpr) string { return sel.X.(*ast.Ident).Name + "." + sel.Sel.Name }

// templateLeaks lists a template file's conditions on the flavour: .Flavor
// (or a flavour's name) in the pipeline of an if, with or range.
func templateLeaks(name, text string) ([]string, error) {
	// Functions are not checked: a profile may use any the renderer gives.
	tr := parse.New(name)
	tr.Mode = parse.SkipFuncCheck | parse.ParseComments
	trees := map[string]*parse.Tree{}
	if _, err := tr.Parse(text, "{{", "}}", trees); err != nil {
		return nil, err
	}
	var out []string
	var walk func(n parse.Node)
	cond := func(p *parse.PipeNode, kind string) {
		if p == nil {
			return
		}
		line := func(pos parse.Pos) int { return 1 + strings.Count(text[:pos], "\n") }
		for _, c := range p.Cmds {
			for _, a := range c.Args {
				switch a := a.(type) {
				case *parse.FieldNode:
					if len(a.Ident) > 0 && a.Ident[len(a.Ident)-1] == "Flavor" {
						out = append(out, name+":"+strconv.Itoa(line(a.Position()))+": "+kind+" on .Flavor")
					}
				case *parse.StringNode:
					if isFlavorWord(a.Text) {
						out = append(out, name+":"+strconv.Itoa(line(a.Position()))+": "+kind+" on "+strconv.Quote(a.Text))
					}
				}
			}
		}
	}
	walk = func(n parse.Node) {
		switch n := n.(type) {
		case *parse.ListNode:
			if n == nil {
				return
			}
			for _, c := range n.Nodes {
				walk(c)
			}
		case *parse.IfNode:
			cond(n.Pipe, "if")
			walk(n.List)
			walk(n.ElseList)
		case *parse.WithNode:
			cond(n.Pipe, "with")
			walk(n.List)
			walk(n.ElseList)
		case *parse.RangeNode:
			cond(n.Pipe, "range")
			walk(n.List)
			walk(n.ElseList)
		}
	}
	for _, t := range trees {
		walk(t.Root)
	}
	return out, nil
}

// repoRoot is the module's root, two levels up from this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root: %v", err)
	}
	return root
}

// scanLeaks runs the flavour grep over the repository: every non-test .go
// file outside this package (and outside testdata), and every profile
// template under playbooks/.
func scanLeaks(t *testing.T, root string) []string {
	t.Helper()
	self, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fset := token.NewFileSet()
	goFiles, templates := 0, 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if p == self || d.Name() == "testdata" || (strings.HasPrefix(d.Name(), ".") && p != root) || rel == "bin" {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go"):
			f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			goFiles++
			out = append(out, goLeaks(fset, f)...)
		case strings.HasPrefix(rel, "playbooks"+string(filepath.Separator)) && strings.HasSuffix(p, ".cnf"):
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			templates++
			found, err := templateLeaks(rel, string(b))
			if err != nil {
				return err
			}
			out = append(out, found...)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A scan that read nothing would pass for the wrong reason.
	if goFiles < 100 || templates < 4 {
		t.Fatalf("scanned %d Go files and %d templates under %s: wrong root?", goFiles, templates, root)
	}
	var kept []string
	for _, l := range out {
		l = strings.TrimPrefix(l, root+string(filepath.Separator))
		file := filepath.ToSlash(strings.SplitN(l, ":", 2)[0])
		lit := l[strings.LastIndexByte(l, ' ')+1:]
		if u, err := strconv.Unquote(lit); err == nil {
			lit = strings.ToLower(strings.TrimLeft(u, "-"))
		}
		if _, ok := leakAllowed[[2]string{file, lit}]; !ok {
			kept = append(kept, l)
		}
	}
	return kept
}

func TestNoFlavorLeaks(t *testing.T) {
	for _, l := range scanLeaks(t, repoRoot(t)) {
		t.Errorf("flavour knowledge outside orchestrator/flavor: %s", l)
	}
}

// The scan finds what it is for, and only that.
func TestLeakScanFinds(t *testing.T) {
	src := `package p
import ("strings"; _ "github.com/go-sql-driver/mysql")
func f(fl, s string, m map[string]int, srv flavor.Server) {
	if fl == "mariadb" {}
	if "MySQL" != fl {}
	switch fl { case "percona": }
	_ = strings.EqualFold(fl, "MariaDB")
	_ = strings.HasSuffix(s, "-MariaDB")
	_ = m["mysql-8"]
	if srv.Flavor == flavor.MariaDB {}
	switch srv.Flavor { case flavor.Percona: }
	_ = flavor.MySQL // naming it is fine: flavor.New(flavor.MySQL, v)
	// Not flavours: a binary, a schema, a path, a file name, a key.
	_ = s == "mariadb-slap" || s == "/var/lib/mysql" || strings.HasPrefix(s, "mysql.user") || strings.TrimSuffix(s, "-mysql.csv") == ""
	_ = map[string]bool{"mysql": true}
}`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := goLeaks(fset, f)
	if len(got) != 8 {
		t.Errorf("found %d, want 8:\n%s", len(got), strings.Join(got, "\n"))
	}
	for _, l := range got {
		if strings.Contains(l, "slap") || strings.Contains(l, "/var/lib") || strings.Contains(l, "mysql.") {
			t.Errorf("not a flavour: %s", l)
		}
	}
	tl, err := templateLeaks("x.cnf", "[mysqld]\n{{- if eq .Flavor \"mariadb\"}}\na = 1\n{{- end}}\n{{range .GTID}}{{.Name}}{{end}}\n{{with hasPrefix .Server \"Percona Server\"}}b{{end}}\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(tl) != 3 || !strings.HasPrefix(tl[0], "x.cnf:2: if on .Flavor") {
		t.Errorf("template: %q", tl)
	}
}

// Every documented exception still matches something: a stale one would
// let a new comparison in that file pass.
func TestLeakExceptionsUsed(t *testing.T) {
	root := repoRoot(t)
	saved := leakAllowed
	leakAllowed = map[[2]string]string{}
	defer func() { leakAllowed = saved }()
	found := scanLeaks(t, root)
	for k := range saved {
		used := false
		for _, l := range found {
			if strings.HasPrefix(l, k[0]+":") && strings.Contains(strings.ToLower(l), strconv.Quote(k[1])) {
				used = true
			}
		}
		if !used {
			t.Errorf("exception %s %q matches nothing: drop it", k[0], k[1])
		}
	}
}
