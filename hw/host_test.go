package hw

import (
	"os"
	"path/filepath"
	"testing"
)

func TestParseOSRelease(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"ubuntu", "NAME=\"Ubuntu\"\nVERSION_ID=\"24.04\"\nPRETTY_NAME=\"Ubuntu 24.04.5 LTS\"\n", "Ubuntu 24.04.5 LTS"},
		{"single quotes and comment", "# comment\nPRETTY_NAME='Fedora Linux 41'\n", "Fedora Linux 41"},
		{"unquoted", "PRETTY_NAME=Arch\n", "Arch"},
		{"no pretty name", "NAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\n", "Debian GNU/Linux 12"},
		{"empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := parseOSRelease(tc.text); got != tc.want {
				t.Errorf("ParseOSRelease = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCleanCPUModel(t *testing.T) {
	for in, want := range map[string]string{
		"AMD Ryzen 9 7900X 12-Core Processor":        "AMD Ryzen 9 7900X",
		"AMD EPYC 9654 96-Core Processor":            "AMD EPYC 9654",
		"Intel(R) Core(TM) i9-13900K":                "Intel Core i9-13900K",
		"Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz":   "Intel Xeon Gold 6248",
		"Intel(R) Xeon(R) Platinum 8480+":            "Intel Xeon Platinum 8480+",
		"AMD Ryzen 7 5700G with Radeon Graphics":     "AMD Ryzen 7 5700G",
		"AMD Ryzen 7 7840HS w/ Radeon 780M Graphics": "AMD Ryzen 7 7840HS",
		"  Neoverse-V2  ":                            "Neoverse-V2",
		"Processor":                                  "Processor",
	} {
		if got := cleanCPUModel(in); got != want {
			t.Errorf("CleanCPUModel(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestInstalledRAMBytes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := installedRAMBytes(dir); ok {
		t.Fatal("installedRAMBytes on an empty dir reported a size")
	}
	write("block_size_bytes", "8000000\n") // 128 MiB, hex as the kernel writes it
	for i, state := range []string{"online", "online", "offline", "online"} {
		write(filepath.Join("memory"+string(rune('0'+i)), "state"), state+"\n")
	}
	got, ok := installedRAMBytes(dir)
	if want := uint64(3 * 128 << 20); !ok || got != want {
		t.Errorf("installedRAMBytes = %d, %v; want %d (3 online blocks of 128 MiB)", got, ok, want)
	}
}
