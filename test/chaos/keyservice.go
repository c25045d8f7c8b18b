package chaos

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
)

// VaultTokenCanary is the VAULT_TOKEN every CLI run gets: a planted hc_vault
// stanza would send it to the listener, and it must never appear in any
// output.
const VaultTokenCanary = "hvs.chaosVaultTokenCanary0123456789"

// KeyServiceListener is a loopback HTTP server standing in for a key
// service a pull request author controls: it counts every request and
// refuses it (403).
type KeyServiceListener struct {
	*httptest.Server
	n atomic.Int64
}

// NewKeyServiceListener starts one on a kernel-chosen loopback port.
func NewKeyServiceListener() *KeyServiceListener {
	l := &KeyServiceListener{}
	l.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		l.n.Add(1)
		w.WriteHeader(http.StatusForbidden)
	}))
	return l
}

// Requests is how many requests arrived so far.
func (l *KeyServiceListener) Requests() int { return int(l.n.Load()) }
