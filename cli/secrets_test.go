package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/engine/launch"
	"speedmatrix/engine/report"
	"speedmatrix/engine/sim"
	"speedmatrix/hw"
)

// The secrets TestSecretsInNoOutput feeds through whole runs.
const (
	testAPIKey      = "sm-cli-secret-key-0123456789"
	testHFToken     = "hf_cli_secret_token_0123"
	testURLPassword = "pw-cli-secret-0123"
)

// TestSecretsInNoOutput runs the matrix with every secret we know of (the
// API key and HF token of a server.toml that a fake vLLM echoes, the
// password of an endpoint URL that the server requires as basic auth) and
// greps every output for them: stdout, stderr, every file of the run
// folder (report.json, results.csv, report.md, the SVG and PNG charts) and
// the server's log files. The servers are simulated (engine/sim).
func TestSecretsInNoOutput(t *testing.T) {
	t.Parallel()
	t.Run("launched server", func(t *testing.T) {
		hwCanned(t, hw.Hardware{}, hw.ErrNoNVML)
		toml := serverTOML(t, buildFakeVLLM(t), "", fmt.Sprintf("api_key = %q", testAPIKey), fmt.Sprintf("hf_token = %q", testHFToken))
		cfg, err := launch.LoadConfig(toml)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "out")
		out, err := runCLI(t, t.Context(), append([]string{"--launch", toml, "--out", dir}, smallMatrix...)...)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		md, _ := os.ReadFile(filepath.Join(dir, report.MarkdownFile))
		if !strings.Contains(string(md), "--api-key <redacted>") || !strings.Contains(string(md), "HF_TOKEN=<redacted>") {
			t.Errorf("report.md lacks the redacted launch command:\n%s", md)
		}
		if !strings.Contains(out, "'api_key': ['<redacted>']") {
			t.Errorf("stderr does not show vLLM's echo of its arguments, redacted:\n%s", out)
		}
		checkNoSecret(t, out, dir, cfg.LogDir)
	})
	t.Run("endpoint with a password", func(t *testing.T) {
		hwCanned(t, hw.Hardware{}, hw.ErrNoNVML)
		p, err := sim.LookupProfile("tiny")
		if err != nil {
			t.Fatal(err)
		}
		s, err := sim.New(sim.Options{Profile: p, TimeScale: 20})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if u, pw, ok := r.BasicAuth(); !ok || u != "ann" || pw != testURLPassword {
				http.Error(w, `{"error":{"message":"basic auth required"}}`, http.StatusUnauthorized)
				return
			}
			s.ServeHTTP(w, r)
		}))
		defer srv.Close()
		endpoint := strings.Replace(srv.URL, "http://", "http://ann:"+testURLPassword+"@", 1)
		dir := filepath.Join(t.TempDir(), "out")
		out, err := runCLI(t, t.Context(), append([]string{"--endpoint", endpoint, "--out", dir}, smallMatrix...)...)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		rep, err := report.Load(dir)
		if err != nil || !rep.Run.Complete || !strings.Contains(rep.Run.Endpoint, "ann:<redacted>@") || !rep.Server.Simulated {
			t.Errorf("report: %v, complete %v, endpoint %q, simulated %v", err, rep.Run.Complete, rep.Run.Endpoint, rep.Server.Simulated)
		}
		if !strings.Contains(out, "warning: --endpoint: the process list (ps) shows its password while the run lasts: give it with --password-env VAR instead") {
			t.Errorf("a password on the command line is not warned of:\n%s", out)
		}
		checkNoSecret(t, out, dir)
		if _, err := runCLI(t, t.Context(), "--resume", dir); err == nil || !strings.Contains(err.Error(), "hides the password of its endpoint") ||
			!strings.Contains(err.Error(), "give it with --password-env VAR") {
			t.Errorf("--resume of a run whose endpoint had a password: %v", err)
		}
		checkPasswordEnv(t, srv.URL)
	})
}

// checkPasswordEnv: the password of an endpoint comes from the variable
// --password-env names, out of the process list, for a run and for the
// resume of one whose report hides it.
func checkPasswordEnv(t *testing.T, serverURL string) {
	variable := fmt.Sprintf("SPEEDMATRIX_TEST_PASSWORD_%d", os.Getpid())
	os.Setenv(variable, testURLPassword) // a name of this test's own: t.Setenv is not for parallel tests
	t.Cleanup(func() { os.Unsetenv(variable) })
	dir := filepath.Join(t.TempDir(), "out")
	endpoint := strings.Replace(serverURL, "http://", "http://ann@", 1)
	out, err := runCLI(t, t.Context(), append([]string{"--endpoint", endpoint, "--password-env", variable, "--out", dir}, smallMatrix...)...)
	if err != nil || strings.Contains(out, "warning: --endpoint") {
		t.Fatalf("run with --password-env: %v\n%s", err, out)
	}
	rep, err := report.Load(dir)
	if err != nil || !strings.Contains(rep.Run.Endpoint, "ann:<redacted>@") {
		t.Fatalf("report: %v, endpoint %q", err, rep.Run.Endpoint)
	}
	rep.Results, rep.Run.Complete = rep.Results[:1], false
	if err := report.Save(dir, rep); err != nil {
		t.Fatal(err)
	}
	more, err := runCLI(t, t.Context(), "--resume", dir, "--password-env", variable)
	if rep, lerr := report.Load(dir); err != nil || lerr != nil || !rep.Run.Complete || len(rep.Results) != 3 {
		t.Errorf("resume with --password-env: %v (%v), %d cells\n%s", err, lerr, len(rep.Results), more)
	}
	checkNoSecret(t, out+more, dir)
}

// checkNoSecret greps the output and every file under dirs for the secrets.
func checkNoSecret(t *testing.T, output string, dirs ...string) {
	t.Helper()
	texts := map[string]string{"stdout and stderr": output}
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			texts[path] = string(b)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(texts) < 5 {
		t.Fatalf("only %d outputs to search: %v", len(texts), texts)
	}
	for name, text := range texts {
		for _, s := range []string{testAPIKey, testHFToken, testURLPassword} {
			if strings.Contains(text, s) {
				t.Errorf("%s shows the secret %q", name, s)
			}
		}
	}
	t.Logf("searched %d outputs", len(texts))
}
