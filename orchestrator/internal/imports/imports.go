// Package imports reads the import graph of this module's packages from
// their sources (non-test files), for the tests that hold its shape: the
// run directory's schema is a leaf, the report reaches no host.
package imports

import (
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Module is this repository's module path (go.mod).
const Module = "github.com/orch-bench/orch"

// Root is the module's directory, found upwards from the working
// directory (a test runs in its package's).
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = up
	}
}

// Of lists the module packages (paths relative to the module) that each
// non-test file of the package in dir imports, by file name.
func Of(dir string) (map[string][]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("%s: no Go files (%v)", dir, err)
	}
	out := map[string][]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			return nil, err
		}
		name := filepath.Base(f)
		out[name] = []string{}
		for _, im := range ast.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if rel, ok := strings.CutPrefix(p, Module+"/"); ok {
				out[name] = append(out[name], rel)
			} else if p == Module {
				out[name] = append(out[name], ".")
			}
		}
	}
	return out, nil
}

// Deps walks the package rel (relative to the module at root) and every
// module package it imports, however indirectly (go list -deps, the
// module's part), and returns for each one reached the chain of imports
// that leads to it, rel first.
func Deps(root, rel string) (map[string][]string, error) {
	chain := map[string][]string{rel: {rel}}
	queue := []string{rel}
	for len(queue) > 0 {
		pkg := queue[0]
		queue = queue[1:]
		files, err := Of(filepath.Join(root, pkg))
		if err != nil {
			return nil, err
		}
		for _, deps := range files {
			for _, dep := range deps {
				if chain[dep] == nil {
					chain[dep] = append(append([]string{}, chain[pkg]...), dep)
					queue = append(queue, dep)
				}
			}
		}
	}
	return chain, nil
}
