package desired

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Whole-value fixtures (testdata/whole/), written by the real sops CLI:
// go test ./internal/desired -run TestGenerateWholeFixtures -regen-fixtures
// (part of the -regen-fixtures run of TestGenerateFixtures' comment).
var (
	wholeCert = "-----BEGIN CERTIFICATE-----\r\nMIIBkTCB+wIJAKHBfpegPjMCMA0GCSqGSIb3DQEBCwUAMBExDzANBgNVBAMMBkNB\r\n-----END CERTIFICATE-----\r\n"
	wholeKS   = func() []byte {
		b := []byte{0xfe, 0xed, 0xfe, 0xed, 0, 0, 0, 2, 0xff, 0xef, 0xbb, 0xbf, '\r', '\n', 0}
		for i := range 600 {
			b = append(b, byte(i*7))
		}
		return b
	}()
	wholeClear = "cleartext-canary-value\n"
)

func TestGenerateWholeFixtures(t *testing.T) {
	if !*regen {
		t.Skip("pass -regen-fixtures to regenerate")
	}
	enc := func(name string, plain []byte, args ...string) {
		in := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(in, plain, 0o600); err != nil {
			t.Fatal(err)
		}
		writeFixture(t, "whole/"+name, runSOPS(t, "sops", nil, append(append([]string{"encrypt", "--age", testRecipient}, args...), in)...))
	}
	writeFixture(t, "whole/plain/cert.txt", []byte(wholeCert))
	writeFixture(t, "whole/plain/keystore.bin", wholeKS)
	enc("cert.sops.txt", []byte(wholeCert))
	enc("keystore.sops.bin", wholeKS)
	enc("empty.sops.bin", nil)
	// What sops before the fix of getsops/sops#1822 wrote for a binary
	// file under an unencrypted_regex/encrypted_suffix rule: the data field
	// in clear text, with a valid MAC.
	clear, _ := json.Marshal(map[string]string{"data": wholeClear})
	enc("cleartext.sops.bin", clear, "--input-type", "json", "--output-type", "json", "--unencrypted-regex", "^data$")
	// A JSON document (two fields) committed under a whole-value suffix.
	enc("json.sops.txt", []byte(`{"data":"x","other":"y"}`), "--input-type", "json", "--output-type", "json")
}
