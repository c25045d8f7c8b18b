package main

// The -overlay mode: gremlins lists the mutants (`unleash --dry-run`), and
// each one is applied here as a mutated copy of its file handed to
// `go test -overlay` (the tree is never touched), then judged by the
// package's tests. It exists for packages whose test run is too slow for
// gremlins' own loop on a shared machine (internal/engine: one run of its
// tests is 30–100 s): -quick runs a chosen subset first, so most mutants are
// killed in seconds and only the ones it misses pay for the whole package.
// The result is written in gremlins' JSON shape, so -report and the table are
// the same as for a gremlins run.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/scanner"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// replacements are gremlins v0.6.0's default mutators, token by token
// (github.com/go-gremlins/gremlins, internal/mutator: the tokens each mutant
// type turns into which).
var replacements = map[string]map[token.Token]token.Token{
	"CONDITIONALS_BOUNDARY": {token.GTR: token.GEQ, token.LSS: token.LEQ, token.LEQ: token.LSS, token.GEQ: token.GTR},
	"CONDITIONALS_NEGATION": {token.EQL: token.NEQ, token.NEQ: token.EQL, token.LEQ: token.GTR, token.GTR: token.LEQ, token.LSS: token.GEQ, token.GEQ: token.LSS},
	"INCREMENT_DECREMENT":   {token.INC: token.DEC, token.DEC: token.INC},
	"INVERT_NEGATIVES":      {token.SUB: token.ADD},
	"ARITHMETIC_BASE":       {token.ADD: token.SUB, token.SUB: token.ADD, token.MUL: token.QUO, token.QUO: token.MUL, token.REM: token.MUL},
}

// mutate returns src with the operator token at line:col (1-based, bytes, as
// gremlins reports it) replaced as kind says. It fails when no token starts
// there or the token is not one kind mutates.
func mutate(src []byte, kind string, line, col int) ([]byte, error) {
	table, ok := replacements[kind]
	if !ok {
		return nil, fmt.Errorf("mutant type %s is not one of gremlins' default mutators", kind)
	}
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	var s scanner.Scanner
	s.Init(file, src, nil, 0)
	for {
		pos, tok, _ := s.Scan()
		if tok == token.EOF {
			return nil, fmt.Errorf("no token at %d:%d", line, col)
		}
		p := fset.Position(pos)
		if p.Line != line || p.Column != col {
			continue
		}
		to, ok := table[tok]
		if !ok {
			return nil, fmt.Errorf("token %s at %d:%d is not mutated by %s", tok, line, col, kind)
		}
		off := file.Offset(pos)
		out := make([]byte, 0, len(src)+1)
		out = append(out, src[:off]...)
		out = append(out, to.String()...)
		return append(out, src[off+len(tok.String()):]...), nil
	}
}

// overlayOptions are the -overlay mode's settings.
type overlayOptions struct {
	workers    int
	quick      string         // -run pattern tried first; "" runs the whole package at once
	timeout    time.Duration  // go test -timeout of one mutant's run (a hang is TIMED OUT)
	notCovered bool           // run the NOT COVERED mutants too (their outcome replaces the status)
	only       *regexp.Regexp // when set, only the mutants whose "file:line:col" it matches are run
}

// runOverlay measures pkg by overlays and writes the JSON result where
// unleash would have.
func runOverlay(bin string, opt overlayOptions, exclude []string, pkg, out string, stdout io.Writer) error {
	res := resultPath(out, pkg)
	args := []string{"unleash", "--dry-run", "-o", res}
	for _, e := range exclude {
		args = append(args, "--exclude-files", e)
	}
	args = append(args, "./"+pkg)
	fmt.Fprintf(stdout, "== %s %s\n", bin, strings.Join(args, " "))
	if b, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
		return fmt.Errorf("gremlins --dry-run: %w\n%s", err, b)
	}
	raw, err := os.ReadFile(res)
	if err != nil {
		return err
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return err
	}
	var list result
	if err := json.Unmarshal(raw, &list); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "mutation-overlay-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	type job struct{ f, m int }
	var jobs []job
	for fi, f := range list.Files {
		for mi, m := range f.Mutations {
			if opt.only != nil && !opt.only.MatchString(fmt.Sprintf("%s:%d:%d", f.Name, m.Line, m.Column)) {
				continue
			}
			if m.Status == "RUNNABLE" || (opt.notCovered && m.Status == "NOT COVERED") {
				jobs = append(jobs, job{fi, mi})
			}
		}
	}
	fmt.Fprintf(stdout, "== %d mutants to run, %d at a time\n", len(jobs), opt.workers)
	ch := make(chan int)
	var mu sync.Mutex
	var wg sync.WaitGroup
	done := 0
	for w := 0; w < opt.workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := range ch {
				j := jobs[i]
				f := list.Files[j.f]
				m := &f.Mutations[j.m]
				start := time.Now()
				status, err := judge(tmp, w, pkg, f.Name, m.Type, m.Line, m.Column, opt)
				mu.Lock()
				done++
				if err != nil {
					status = "NOT VIABLE"
					fmt.Fprintf(stdout, "   %s:%d:%d %s: %v\n", f.Name, m.Line, m.Column, m.Type, err)
				}
				m.Status = status
				fmt.Fprintf(stdout, "[%d/%d] %-10s %-22s %s:%d:%d (%s)\n", done, len(jobs), status, m.Type, f.Name, m.Line, m.Column, time.Since(start).Round(time.Second))
				mu.Unlock()
			}
		}(w)
	}
	for i := range jobs {
		ch <- i
	}
	close(ch)
	wg.Wait()

	// Keep gremlins' other fields; replace the files with the judged list.
	b, err := json.Marshal(list.Files)
	if err != nil {
		return err
	}
	var files any
	if err := json.Unmarshal(b, &files); err != nil {
		return err
	}
	doc["files"] = files
	doc["mode"] = "overlay"
	b, err = json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(res, b, 0o644)
}

var buildFailed = regexp.MustCompile(`\[(build|setup) failed\]`)

// judge applies one mutant and runs the tests: KILLED when they fail,
// LIVED when they pass, TIMED OUT when go test's -timeout fired; an error
// when the mutant does not compile (NOT VIABLE).
func judge(tmp string, worker int, pkg, name, kind string, line, col int, opt overlayOptions) (string, error) {
	path, err := filepath.Abs(filepath.Join(pkg, name))
	if err != nil {
		return "", err
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	mutated, err := mutate(src, kind, line, col)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(tmp, fmt.Sprint(worker))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	copyPath := filepath.Join(dir, name)
	if err := os.WriteFile(copyPath, mutated, 0o644); err != nil {
		return "", err
	}
	ov, _ := json.Marshal(map[string]map[string]string{"Replace": {path: copyPath}})
	ovPath := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(ovPath, ov, 0o644); err != nil {
		return "", err
	}
	runs := []string{opt.quick, ""}
	if opt.quick == "" {
		runs = runs[1:]
	}
	for _, pattern := range runs {
		args := []string{"test", "-count=1", "-failfast", "-overlay", ovPath, "-timeout", opt.timeout.String()}
		if pattern != "" {
			args = append(args, "-run", pattern)
		}
		args = append(args, "./"+pkg)
		cmd := exec.CommandContext(context.Background(), "go", args...)
		var outBuf bytes.Buffer
		cmd.Stdout, cmd.Stderr = &outBuf, &outBuf
		err := cmd.Run()
		if err == nil {
			continue
		}
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return "", err
		}
		text := outBuf.String()
		switch {
		case buildFailed.MatchString(text):
			return "", errors.New("does not compile")
		case strings.Contains(text, "panic: test timed out"):
			return "TIMED OUT", nil
		}
		return "KILLED", nil
	}
	return "LIVED", nil
}
