package desired

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// Cache lets the loads of one run share decryptions (SPEC §10: the scopes
// of a run read one commit): a committed blob selected by several scopes is
// read and decrypted once, and every later load of it takes the canonical
// value, or the diagnostic, of the first. Entries are keyed by the Git blob
// id (the hash of the blob's bytes), the document's format (which also
// decides the value kind) and the decryption settings (key-service
// allow-list, --max-encrypted-bytes, --operation-timeout), so two documents
// share an entry only when decrypting them is the same computation. A
// failed document's diagnostic is kept without its subject: each load
// names its own document (ordinal, path) in it, so an invalid document is
// reported in every scope that selects it.
//
// The cache holds plaintext values (the canonical values the states hold
// too): a run makes one with NewCache before its first load and calls Drop
// once its loads have ended; nothing outlives the run. A load that finds a
// blob being decrypted by another load waits for it (or for its own ctx).
// Safe for concurrent use; a nil *Cache shares nothing.
type Cache struct {
	mu        sync.Mutex
	entries   map[cacheKey]*cacheEntry
	decrypted atomic.Int64
}

// NewCache returns an empty cache for the loads of one run.
func NewCache() *Cache { return &Cache{entries: map[cacheKey]*cacheEntry{}} }

// Drop forgets every entry, so the cache no longer holds any value; loads
// after Drop decrypt again. The values already returned in states are not
// touched (they are shared with them).
func (c *Cache) Drop() {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.entries = map[cacheKey]*cacheEntry{}
	c.mu.Unlock()
}

// Decrypted is the number of documents the loads using c have read and
// decrypted (each entry once), for logs and tests.
func (c *Cache) Decrypted() int64 {
	if c == nil {
		return 0
	}
	return c.decrypted.Load()
}

// cacheKey identifies one decryption: the blob, its format and the
// settings that can change its outcome.
type cacheKey struct {
	blob     string
	format   model.Format
	settings string
}

// cacheEntry is one decryption's outcome, readable once done is closed:
// value (canonical) or fail (no subject).
type cacheEntry struct {
	done  chan struct{}
	value []byte
	fail  *diag.Diagnostic
}

// settingsKey is the part of a cache key that comes from the load's
// options: what decides whether decrypting a blob succeeds and how.
func settingsKey(opts config.Desired) string {
	return fmt.Sprintf("%d|%d|%#v", opts.MaxEncryptedBytes, opts.KeyServiceTimeout, opts.KeyServices)
}

// claim returns the entry of k and whether the caller must fill it (read,
// decrypt, then finish). With a nil cache every claim is a fresh entry of
// the caller's own.
func (c *Cache) claim(k cacheKey) (*cacheEntry, bool) {
	if c == nil {
		return &cacheEntry{done: make(chan struct{})}, true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[k]; ok {
		return e, false
	}
	e := &cacheEntry{done: make(chan struct{})}
	c.entries[k] = e
	c.decrypted.Add(1)
	return e, true
}

// finish records the outcome of an entry the caller claimed and wakes the
// loads waiting for it; fail loses nothing of its class or text.
func (e *cacheEntry) finish(value []byte, fail *diag.Diagnostic) {
	e.value, e.fail = value, fail
	close(e.done)
}

// wait blocks until the entry is finished or ctx ends (false).
func (e *cacheEntry) wait(ctx context.Context) bool {
	select {
	case <-e.done:
		return true
	case <-ctx.Done():
		return false
	}
}

// outcome is the entry's value, or a copy of its diagnostic (the caller
// gives the copy its own subject).
func (e *cacheEntry) outcome() ([]byte, *diag.Diagnostic) {
	if e.fail != nil {
		f := *e.fail
		return nil, &f
	}
	return e.value, nil
}
