package chaos

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Scaffolding shared by the families played after the estate scenarios
// (rotation, Parameter Store primary, many accounts): each plays against
// an emulator process of its own, writes its revisions as the commits of
// a repository, and runs the CLI as a user would, with an environment
// that inherits nothing, reading its report back.

// commitRevisions encrypts the documents of each revision (path → Doc)
// and writes the revisions as successive commits of a repository at
// dir/repo, with plain[i] (path → bytes, written as they are; nil or
// shorter than revs = none) added to revision i. It returns the
// repository and the commits' ids, oldest first.
func commitRevisions(enc *Encrypter, dir string, revs []map[string]Doc, plain []map[string][]byte) (string, []string, error) {
	commits := make([]map[string][]byte, 0, len(revs))
	for i, docs := range revs {
		files := map[string][]byte{}
		for path, d := range docs {
			b, err := enc.Encrypt(d)
			if err != nil {
				return "", nil, err
			}
			files[path] = b
		}
		if i < len(plain) {
			for path, b := range plain[i] {
				files[path] = b
			}
		}
		commits = append(commits, files)
	}
	repo := filepath.Join(dir, "repo")
	shas, err := WriteRepo(repo, commits)
	return repo, shas, err
}

// cliEnv is the environment of a CLI process of an extra family: HOME,
// a plain PATH, the static credentials accessKey/secretKey, no instance
// metadata and no AWS config or credentials file, the campaign's age key,
// then extra (KEY=VALUE: the endpoints, the SDK application id).
func cliEnv(home string, enc *Encrypter, accessKey, secretKey string, extra ...string) []string {
	env := []string{"HOME=" + home, "PATH=/usr/local/bin:/usr/bin:/bin",
		"AWS_ACCESS_KEY_ID=" + accessKey, "AWS_SECRET_ACCESS_KEY=" + secretKey, "AWS_EC2_METADATA_DISABLED=true",
		"AWS_CONFIG_FILE=" + filepath.Join(home, "none"), "AWS_SHARED_CREDENTIALS_FILE=" + filepath.Join(home, "none"),
		"SOPS_AGE_KEY_FILE=" + enc.KeyFile}
	return append(env, extra...)
}

// execCLI runs cli with args and env to its end and returns its exit code,
// outputs, duration and the report file it wrote (nil when none). A
// non-zero exit is a result, not an error; failing to start is one. kill,
// when not nil, receives a function that SIGKILLs the process once it
// has started (the proxy's kill plans call it); Killed is set when it did.
func execCLI(cli string, args, env []string, report string, kill func(func())) (RunResult, error) {
	cmd := exec.Command(cli, args...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	started := make(chan struct{})
	fired := make(chan struct{}, 1)
	if kill != nil {
		kill(func() {
			<-started
			select {
			case fired <- struct{}{}:
				_ = cmd.Process.Kill()
			default:
			}
		})
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		close(started)
		return RunResult{}, err
	}
	close(started)
	err := cmd.Wait()
	rr := RunResult{Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), Duration: time.Since(t0), Exit: cmd.ProcessState.ExitCode()}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return rr, err
	}
	rr.Killed = len(fired) > 0 && rr.Exit == -1
	if b, err := os.ReadFile(report); err == nil {
		rr.Report = b
	}
	return rr, nil
}
