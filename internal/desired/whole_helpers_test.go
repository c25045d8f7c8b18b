package desired

import (
	"context"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/desired/decryptor"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// Load is the tests' whole load of one scope: Open, then Decrypt, then
// the Arrival's whole state; the errors are those of Open or Decrypt.
func Load(ctx context.Context, opts config.Desired) (model.State, error) {
	return load(ctx, opts, nil, nil, nil)
}

// LoadShared is Load sharing decryptions through c (nil: none) and
// counting documents in p (nil: none).
func LoadShared(ctx context.Context, opts config.Desired, p *Progress, c *Cache) (model.State, error) {
	return load(ctx, opts, p, c, nil)
}

// load is LoadShared with the key-service bound started by afterFunc
// (nil: the real clock).
func load(ctx context.Context, opts config.Desired, p *Progress, c *Cache, afterFunc decryptor.AfterFunc) (model.State, error) {
	l, err := Open(ctx, opts)
	if err != nil {
		return model.State{}, err
	}
	if err := l.decrypt(ctx, p, c, afterFunc); err != nil {
		return model.State{}, err
	}
	return l.Arrival().State()
}
