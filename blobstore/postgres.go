package blobstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/proto"
)

// The PostgreSQL driver's names, stored in history beside every claim it
// made: renaming either makes its blobs unreadable.
const (
	PostgresDriverName = "tether-postgres"
	PostgresDriverType = "tether.blobstore.postgres"
	// PostgresTable holds the blobs, in the schema the connection's
	// search_path names first.
	PostgresTable = "tether_blobs"
)

// EnvStore names the store by URL when no flag does: postgres://… or
// postgresql://… (a libpq connection URL; pgx also reads PGPASSWORD,
// PGPASSFILE and the other PG* variables).
const EnvStore = "TETHER_BLOB_STORE"

// Postgres is a StorageDriver keeping each payload in a row of one table,
// keyed by the SHA-256 of its bytes. It is safe for concurrent use by any
// number of workers and clients on the same database: a row's bytes are
// written once and never updated; storing a payload again only moves its
// stored_at forward, which is what keeps a collection (Collect) from
// deleting a blob a new claim is about to name.
type Postgres struct {
	pool *pgxpool.Pool
	desc string // the database, for errors: host, port and name, no password
}

var _ Store = (*Postgres)(nil)

// OpenPostgres connects to the database of url and creates the table if it
// is missing. Close releases the connections.
func OpenPostgres(ctx context.Context, url string) (*Postgres, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("blob store: %w", err) // pgx leaves the password out
	}
	desc := fmt.Sprintf("postgres %s:%d/%s", cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("blob store %s: %w", desc, err)
	}
	p := &Postgres{pool: pool, desc: desc}
	if err := p.migrate(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("blob store %s: %w", desc, err)
	}
	return p, nil
}

// migrate creates the table once: under an advisory lock, since two
// workers starting at once would otherwise race CREATE TABLE IF NOT EXISTS
// into a unique violation.
func (p *Postgres) migrate(ctx context.Context) error {
	return pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('`+PostgresTable+`'))`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+PostgresTable+` (
	sha256    text PRIMARY KEY CHECK (sha256 ~ '^[0-9a-f]{64}$'),
	data      bytea NOT NULL,
	stored_at timestamptz NOT NULL DEFAULT now()
)`)
		return err
	})
}

// Close closes the connection pool.
func (p *Postgres) Close() { p.pool.Close() }

// String names the database, without credentials.
func (p *Postgres) String() string { return p.desc }

// Name implements converter.StorageDriver.
func (p *Postgres) Name() string { return PostgresDriverName }

// Type implements converter.StorageDriver.
func (p *Postgres) Type() string { return PostgresDriverType }

// Store writes each payload to the row named by its SHA-256.
func (p *Postgres) Store(ctx converter.StorageDriverStoreContext, payloads []*commonpb.Payload) ([]converter.StorageDriverClaim, error) {
	claims := make([]converter.StorageDriverClaim, len(payloads))
	for i, pl := range payloads {
		err := ctx.GetLimiter().Permit(ctx.Context, pl, func() error {
			sum, err := p.write(ctx.Context, pl)
			claims[i] = converter.StorageDriverClaim{ClaimData: map[string]string{ClaimSHA256: sum}}
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return claims, nil
}

// Retrieve reads back the payload of each claim, checking its hash.
func (p *Postgres) Retrieve(ctx converter.StorageDriverRetrieveContext, claims []converter.StorageDriverClaim) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(claims))
	for i, c := range claims {
		err := ctx.GetLimiter().Permit(ctx.Context, c, func() error {
			pl, err := p.read(ctx.Context, c)
			out[i] = pl
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (p *Postgres) write(ctx context.Context, pl *commonpb.Payload) (string, error) {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(pl)
	if err != nil {
		return "", fmt.Errorf("encode blob: %w", err)
	}
	h := sha256.Sum256(b)
	sum := hex.EncodeToString(h[:])
	// The bytes of an existing row are the same (they hash to its key):
	// only its stored_at moves.
	_, err = p.pool.Exec(ctx, `INSERT INTO `+PostgresTable+` (sha256, data) VALUES ($1, $2)
ON CONFLICT (sha256) DO UPDATE SET stored_at = greatest(`+PostgresTable+`.stored_at, now())`, sum, b)
	if err != nil {
		return "", fmt.Errorf("store blob sha256:%s (%s): %w", sum, p.desc, err)
	}
	return sum, nil
}

func (p *Postgres) read(ctx context.Context, c converter.StorageDriverClaim) (*commonpb.Payload, error) {
	sum, err := claimSum(c)
	if err != nil {
		return nil, err
	}
	var b []byte
	err = p.pool.QueryRow(ctx, `SELECT data FROM `+PostgresTable+` WHERE sha256 = $1`, sum).Scan(&b)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, fmt.Errorf("%w: sha256:%s (%s, table %s)", ErrMissing, sum, p.desc, PostgresTable)
	case err != nil:
		return nil, fmt.Errorf("read blob sha256:%s (%s): %w", sum, p.desc, err)
	}
	return decodeBlob(sum, b, fmt.Sprintf("%s, table %s", p.desc, PostgresTable))
}

// Blobs implements Store.
func (p *Postgres) Blobs(ctx context.Context, fn func(Blob) error) error {
	rows, err := p.pool.Query(ctx, `SELECT sha256, stored_at, octet_length(data) FROM `+PostgresTable)
	if err != nil {
		return fmt.Errorf("list blobs (%s): %w", p.desc, err)
	}
	var all []Blob // read whole, so fn may use the pool
	for rows.Next() {
		var b Blob
		if err := rows.Scan(&b.SHA256, &b.StoredAt, &b.Size); err != nil {
			rows.Close()
			return fmt.Errorf("list blobs (%s): %w", p.desc, err)
		}
		all = append(all, b)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("list blobs (%s): %w", p.desc, err)
	}
	for _, b := range all {
		if err := fn(b); err != nil {
			return err
		}
	}
	return nil
}

// Delete implements Store: in one statement, so a Store of the same
// payload either comes first (and the row stays) or inserts it anew.
func (p *Postgres) Delete(ctx context.Context, sum string, storedBefore time.Time) (bool, error) {
	tag, err := p.pool.Exec(ctx, `DELETE FROM `+PostgresTable+` WHERE sha256 = $1 AND stored_at < $2`, sum, storedBefore)
	if err != nil {
		return false, fmt.Errorf("delete blob sha256:%s (%s): %w", sum, p.desc, err)
	}
	return tag.RowsAffected() == 1, nil
}

// claimSum is the SHA-256 a claim names, checked to be one.
func claimSum(c converter.StorageDriverClaim) (string, error) {
	sum := c.ClaimData[ClaimSHA256]
	if !validSum(sum) {
		return "", fmt.Errorf("%w: %v", ErrBadClaim, c.ClaimData)
	}
	return sum, nil
}

// validSum: lower-case hex of 32 bytes, so a claim names no file outside
// the directory and no row another hash could name.
func validSum(sum string) bool {
	b, err := hex.DecodeString(sum)
	return err == nil && len(b) == sha256.Size && hex.EncodeToString(b) == sum
}

// decodeBlob checks b hashes to sum and decodes it; where names the blob's
// place for errors.
func decodeBlob(sum string, b []byte, where string) (*commonpb.Payload, error) {
	if h := sha256.Sum256(b); hex.EncodeToString(h[:]) != sum {
		return nil, fmt.Errorf("%w: sha256:%s (%s) hashes to sha256:%x", ErrCorrupt, sum, where, h)
	}
	pl := &commonpb.Payload{}
	if err := proto.Unmarshal(b, pl); err != nil {
		return nil, fmt.Errorf("%w: sha256:%s (%s): %v", ErrCorrupt, sum, where, err)
	}
	return pl, nil
}
