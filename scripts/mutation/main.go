// Command mutation is the driver of `make mutation`: it runs gremlins
// (mutation testing, github.com/go-gremlins/gremlins) on each package given,
// one package after the other and each against its own tests only, keeps
// gremlins' JSON result per package, and prints the table of
// docs/testing.md ("Mutation testing") followed by every mutant that lived
// or timed out, with its source line. It is a measuring aid, not part of the
// product.
//
// Usage:
//
//	go run ./scripts/mutation [-workers N] [-timeout-coefficient N] [-out DIR]
//	    [-gremlins PATH] [-report] [-exclude REGEXP]...
//	    [-overlay [-quick PATTERN] [-only REGEXP] [-mutant-timeout D] [-not-covered]] PKG...
//
// PKG is a package directory relative to internal/ (`pace`,
// `desired/decryptor`) or a path (`./internal/pace`). With -report nothing
// is run: the table is printed from the JSON files a previous run left in
// -out. -exclude is passed to gremlins as --exclude-files (a regexp over file
// paths): a package too slow to measure at once is measured file by file.
// -timeout-coefficient is gremlins' --timeout-coefficient: a mutant's test
// run may take that many times the unmutated run's time before it counts as
// TIMED OUT. gremlins' own default is tight for a loaded shared machine,
// where a slow run is not a hanging mutant; 10 by default here. -overlay
// takes gremlins' list of mutants and judges each through `go test
// -overlay` instead (overlay.go), for packages too slow for gremlins' loop.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mutation:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("mutation", flag.ContinueOnError)
	workers := fs.Int("workers", 1, "gremlins --workers (the machine is shared: keep it low)")
	coefficient := fs.Int("timeout-coefficient", 10, "gremlins --timeout-coefficient (raised: a loaded machine makes slow runs, not hanging mutants)")
	out := fs.String("out", "bin/mutation", "directory of the per-package JSON results and logs")
	gremlins := fs.String("gremlins", "gremlins", "the gremlins binary")
	reportOnly := fs.Bool("report", false, "print the table from the results in -out without running")
	overlay := fs.Bool("overlay", false, "apply gremlins' --dry-run mutants through go test -overlay instead of gremlins' own loop (overlay.go)")
	quick := fs.String("quick", "", "with -overlay: a go test -run pattern tried before the whole package")
	mutantTimeout := fs.Duration("mutant-timeout", 10*time.Minute, "with -overlay: go test -timeout of one mutant's run")
	notCovered := fs.Bool("not-covered", false, "with -overlay: run the NOT COVERED mutants too")
	only := fs.String("only", "", "with -overlay: run only the mutants whose file:line:col this regexp matches (the others keep gremlins' listing status)")
	var exclude multi
	fs.Var(&exclude, "exclude", "regexp of files to leave out (gremlins --exclude-files); repeatable")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var pkgs []string
	for _, a := range fs.Args() {
		for _, p := range strings.FieldsFunc(a, func(r rune) bool { return r == ',' || r == ' ' }) {
			pkgs = append(pkgs, normalise(p))
		}
	}
	if len(pkgs) == 0 {
		return errors.New("no package given (PKGS=...)")
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	if !*reportOnly {
		for _, p := range pkgs {
			if *overlay {
				opt := overlayOptions{workers: *workers, quick: *quick, timeout: *mutantTimeout, notCovered: *notCovered}
				if *only != "" {
					re, err := regexp.Compile(*only)
					if err != nil {
						return fmt.Errorf("-only: %w", err)
					}
					opt.only = re
				}
				if err := runOverlay(*gremlins, opt, exclude, p, *out, stdout); err != nil {
					return fmt.Errorf("%s: %w", p, err)
				}
				continue
			}
			if err := unleash(*gremlins, *workers, *coefficient, exclude, p, *out, stdout); err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
		}
	}
	var rows []row
	for _, p := range pkgs {
		r, err := load(p, *out)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		rows = append(rows, r)
	}
	printTable(stdout, rows)
	return nil
}

// normalise turns `pace`, `internal/pace` and `./internal/pace/` into
// `internal/pace`.
func normalise(p string) string {
	p = strings.TrimSuffix(strings.TrimPrefix(filepath.ToSlash(p), "./"), "/")
	if !strings.HasPrefix(p, "internal/") {
		p = "internal/" + p
	}
	return p
}

func resultPath(out, pkg string) string {
	return filepath.Join(out, strings.ReplaceAll(strings.TrimPrefix(pkg, "internal/"), "/", "_")+".json")
}

// unleash runs gremlins on one package with its default mutators; its
// output goes to stdout and to a .log beside the JSON result.
func unleash(bin string, workers, coefficient int, exclude []string, pkg, out string, stdout io.Writer) error {
	res := resultPath(out, pkg)
	log, err := os.Create(strings.TrimSuffix(res, ".json") + ".log")
	if err != nil {
		return err
	}
	defer log.Close()
	args := []string{"unleash", "--workers", fmt.Sprint(workers), "--timeout-coefficient", fmt.Sprint(coefficient), "-o", res}
	for _, e := range exclude {
		args = append(args, "--exclude-files", e)
	}
	args = append(args, "./"+pkg)
	fmt.Fprintf(stdout, "== %s %s\n", bin, strings.Join(args, " "))
	cmd := exec.Command(bin, args...)
	cmd.Stdout = io.MultiWriter(stdout, log)
	cmd.Stderr = io.MultiWriter(stdout, log)
	return cmd.Run()
}

// result is the part of gremlins' JSON result (-o) read here.
type result struct {
	Files []struct {
		Name      string `json:"file_name"`
		Mutations []struct {
			Type   string `json:"type"`
			Status string `json:"status"`
			Line   int    `json:"line"`
			Column int    `json:"column"`
		} `json:"mutations"`
	} `json:"files"`
}

type mutant struct {
	file, kind, status, source string
	line, col                  int
}

type row struct {
	pkg                                        string
	killed, lived, notCovered, timedOut, other int
	survivors                                  []mutant
}

// efficacy is gremlins' test efficacy: killed over killed + lived, in %.
func (r row) efficacy() float64 {
	if r.killed+r.lived == 0 {
		return 100
	}
	return 100 * float64(r.killed) / float64(r.killed+r.lived)
}

func load(pkg, out string) (row, error) {
	b, err := os.ReadFile(resultPath(out, pkg))
	if err != nil {
		return row{}, err
	}
	var res result
	if err := json.Unmarshal(b, &res); err != nil {
		return row{}, err
	}
	r := row{pkg: strings.TrimPrefix(pkg, "internal/")}
	for _, f := range res.Files {
		for _, m := range f.Mutations {
			switch m.Status {
			case "KILLED":
				r.killed++
				continue
			case "LIVED":
				r.lived++
			case "NOT COVERED":
				r.notCovered++
				continue
			case "TIMED OUT":
				r.timedOut++
			default: // NOT VIABLE, SKIPPED
				r.other++
				continue
			}
			r.survivors = append(r.survivors, mutant{file: f.Name, kind: m.Type, status: m.Status,
				line: m.Line, col: m.Column, source: sourceLine(filepath.Join(pkg, f.Name), m.Line)})
		}
	}
	sort.Slice(r.survivors, func(i, j int) bool {
		a, b := r.survivors[i], r.survivors[j]
		if a.file != b.file {
			return a.file < b.file
		}
		if a.line != b.line {
			return a.line < b.line
		}
		return a.col < b.col
	})
	return r, nil
}

// sourceLine is line n of file, trimmed ("" when unreadable: the file may
// have changed since the run).
func sourceLine(file string, n int) string {
	b, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	lines := strings.Split(string(b), "\n")
	if n < 1 || n > len(lines) {
		return ""
	}
	return strings.TrimSpace(lines[n-1])
}

func printTable(w io.Writer, rows []row) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| package | killed | lived | not covered | timed out | efficacy % |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %.1f |\n", r.pkg, r.killed, r.lived, r.notCovered, r.timedOut, r.efficacy())
	}
	for _, r := range rows {
		if len(r.survivors) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s: %d survivors\n", r.pkg, len(r.survivors))
		for _, m := range r.survivors {
			fmt.Fprintf(w, "  %-9s %-22s %s:%d:%d  %s\n", m.status, m.kind, m.file, m.line, m.col, m.source)
		}
	}
}
