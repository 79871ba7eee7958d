package blobstore_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"

	"github.com/tetherdev/tether/blobstore"
	"github.com/tetherdev/tether/internal/pgtest"
)

// One real PostgreSQL server (Debian's binaries) for the store's
// behaviours, each on a database of its own.
func TestPostgresStore(t *testing.T) {
	srv := pgtest.Start(t)
	admin, err := pgx.Connect(context.Background(), srv.DSN)
	require.NoError(t, err)
	defer admin.Close(context.Background())
	n := 0
	open := func(t *testing.T) (*blobstore.Postgres, *pgx.Conn) {
		n++
		db := "blobs" + strings.Repeat("x", n) // a fresh database: no table yet
		_, err := admin.Exec(context.Background(), "CREATE DATABASE "+db)
		require.NoError(t, err)
		url := strings.Replace(srv.DSN, "/postgres?", "/"+db+"?", 1)
		p, err := blobstore.Open(context.Background(), url)
		require.NoError(t, err)
		t.Cleanup(p.Close)
		conn, err := pgx.Connect(context.Background(), url)
		require.NoError(t, err)
		t.Cleanup(func() { conn.Close(context.Background()) })
		return p, conn
	}
	t.Run("round trips payloads as content-addressed rows", func(t *testing.T) {
		p, conn := open(t)
		testRoundTrip(t, p)
		var rows int
		require.NoError(t, conn.QueryRow(context.Background(), "SELECT count(*) FROM "+blobstore.PostgresTable).Scan(&rows))
		require.Equal(t, 2, rows, "two distinct blobs")
	})
	t.Run("eight workers storing one payload at once leave one whole row", func(t *testing.T) {
		p, conn := open(t)
		big := payload(t, strings.Repeat("y", 1<<20))
		var wg sync.WaitGroup
		claims := make([][]converter.StorageDriverClaim, 8)
		errs := make([]error, 8)
		for i := range 8 {
			wg.Go(func() {
				claims[i], errs[i] = p.Store(converter.StorageDriverStoreContext{Context: context.Background()}, []*commonpb.Payload{big})
			})
		}
		wg.Wait()
		for i := range 8 {
			require.NoError(t, errs[i])
			require.Equal(t, claims[0], claims[i])
		}
		var rows int
		require.NoError(t, conn.QueryRow(context.Background(), "SELECT count(*) FROM "+blobstore.PostgresTable).Scan(&rows))
		require.Equal(t, 1, rows)
		got, err := retrieveFrom(p, claims[0]...)
		require.NoError(t, err)
		require.Equal(t, big.GetData(), got[0].GetData())
	})
	t.Run("two stores opening one new database at once both work", func(t *testing.T) {
		n++
		db := "blobs" + strings.Repeat("x", n)
		_, err := admin.Exec(context.Background(), "CREATE DATABASE "+db)
		require.NoError(t, err)
		url := strings.Replace(srv.DSN, "/postgres?", "/"+db+"?", 1)
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range 4 {
			wg.Go(func() {
				p, err := blobstore.Open(context.Background(), url)
				if err == nil {
					_, err = p.Store(converter.StorageDriverStoreContext{Context: context.Background()}, []*commonpb.Payload{payload(t, i)})
					p.Close()
				}
				errs[i] = err
			})
		}
		wg.Wait()
		for _, err := range errs {
			require.NoError(t, err)
		}
	})
	t.Run("names the claim and table of a missing or corrupt blob", func(t *testing.T) {
		p, conn := open(t)
		claims, err := p.Store(converter.StorageDriverStoreContext{Context: context.Background()},
			[]*commonpb.Payload{payload(t, "kept"), payload(t, "lost"), payload(t, "tampered")})
		require.NoError(t, err)
		lost, tampered := claims[1].ClaimData[blobstore.ClaimSHA256], claims[2].ClaimData[blobstore.ClaimSHA256]
		_, err = conn.Exec(context.Background(), "DELETE FROM "+blobstore.PostgresTable+" WHERE sha256 = $1", lost)
		require.NoError(t, err)
		_, err = conn.Exec(context.Background(), "UPDATE "+blobstore.PostgresTable+" SET data = 'garbage' WHERE sha256 = $1", tampered)
		require.NoError(t, err)

		_, err = retrieveFrom(p, claims[0], claims[1])
		require.ErrorIs(t, err, blobstore.ErrMissing)
		require.ErrorContains(t, err, "sha256:"+lost)
		require.ErrorContains(t, err, blobstore.PostgresTable)
		_, err = retrieveFrom(p, claims[2])
		require.ErrorIs(t, err, blobstore.ErrCorrupt)
		require.ErrorContains(t, err, "sha256:"+tampered)
		_, err = retrieveFrom(p, converter.StorageDriverClaim{ClaimData: map[string]string{blobstore.ClaimSHA256: "' OR 1=1 --"}})
		require.ErrorIs(t, err, blobstore.ErrBadClaim)
		got, err := retrieveFrom(p, claims[0])
		require.NoError(t, err, "the kept blob still reads")
		require.Equal(t, payload(t, "kept").GetData(), got[0].GetData())
	})
	t.Run("deletes only what was last stored before the cutoff", func(t *testing.T) {
		p, conn := open(t)
		testDeleteKeepsWhatWasStoredSince(t, p, func(sum string, at time.Time) {
			_, err := conn.Exec(context.Background(), "UPDATE "+blobstore.PostgresTable+" SET stored_at = $2 WHERE sha256 = $1", sum, at)
			require.NoError(t, err)
		})
	})
	t.Run("connects over the server's Unix socket, as the cluster setup does", func(t *testing.T) {
		password := strings.TrimPrefix(strings.Split(srv.DSN, "@")[0], "postgres://tether:")
		port := strings.Split(strings.Split(srv.DSN, "@127.0.0.1:")[1], "/")[0]
		p, err := blobstore.Open(context.Background(), "postgres://tether:"+password+"@/postgres?host="+srv.Dir+"&port="+port)
		require.NoError(t, err)
		defer p.Close()
		testRoundTrip(t, p)
	})
	t.Run("a bad URL is refused without its password", func(t *testing.T) {
		_, err := blobstore.Open(context.Background(), "postgres://u:secretpw@127.0.0.1:1/db?sslmode=disable&connect_timeout=2")
		require.Error(t, err)
		require.NotContains(t, err.Error(), "secretpw")
		_, err = blobstore.Open(context.Background(), "s3://bucket")
		require.ErrorContains(t, err, "want a postgres:// or postgresql:// URL")
	})
}

func retrieveFrom(s converter.StorageDriver, claims ...converter.StorageDriverClaim) ([]*commonpb.Payload, error) {
	return s.Retrieve(converter.StorageDriverRetrieveContext{Context: context.Background()}, claims)
}

// testRoundTrip: the same payload is the same claim, and each reads back.
func testRoundTrip(t *testing.T, s converter.StorageDriver) {
	big := strings.Repeat("x", 1<<20)
	claims, err := s.Store(converter.StorageDriverStoreContext{Context: context.Background()},
		[]*commonpb.Payload{payload(t, big), payload(t, "small"), payload(t, big)})
	require.NoError(t, err)
	require.Len(t, claims, 3)
	require.Equal(t, claims[0], claims[2], "the same payload is the same blob")
	require.NotEqual(t, claims[0], claims[1])
	got, err := retrieveFrom(s, claims...)
	require.NoError(t, err)
	var str string
	require.NoError(t, converter.GetDefaultDataConverter().FromPayload(got[0], &str))
	require.Equal(t, big, str)
	require.NoError(t, converter.GetDefaultDataConverter().FromPayload(got[1], &str))
	require.Equal(t, "small", str)
}

// testDeleteKeepsWhatWasStoredSince: of two blobs dated an hour back, the
// one stored again since survives a delete with a cutoff a minute back,
// the other goes; a deleted blob stored again reads again.
func testDeleteKeepsWhatWasStoredSince(t *testing.T, s blobstore.Store, backdate func(sum string, at time.Time)) {
	ctx := context.Background()
	claims, err := s.Store(converter.StorageDriverStoreContext{Context: ctx}, []*commonpb.Payload{payload(t, "old"), payload(t, "again")})
	require.NoError(t, err)
	old, again := claims[0].ClaimData[blobstore.ClaimSHA256], claims[1].ClaimData[blobstore.ClaimSHA256]
	hourAgo := time.Now().Add(-time.Hour)
	backdate(old, hourAgo)
	backdate(again, hourAgo)
	listed := map[string]time.Time{}
	require.NoError(t, s.Blobs(ctx, func(b blobstore.Blob) error { listed[b.SHA256] = b.StoredAt; return nil }))
	require.Len(t, listed, 2)
	require.WithinDuration(t, hourAgo, listed[old], time.Second)

	_, err = s.Store(converter.StorageDriverStoreContext{Context: ctx}, []*commonpb.Payload{payload(t, "again")})
	require.NoError(t, err)
	cutoff := time.Now().Add(-time.Minute)
	deleted, err := s.Delete(ctx, again, cutoff)
	require.NoError(t, err)
	require.False(t, deleted, "stored again since the cutoff: kept")
	deleted, err = s.Delete(ctx, old, cutoff)
	require.NoError(t, err)
	require.True(t, deleted)
	deleted, err = s.Delete(ctx, old, cutoff)
	require.NoError(t, err)
	require.False(t, deleted, "already gone")

	_, err = retrieveFrom(s, claims[0])
	require.ErrorIs(t, err, blobstore.ErrMissing)
	_, err = retrieveFrom(s, claims[1])
	require.NoError(t, err)
	_, err = s.Store(converter.StorageDriverStoreContext{Context: ctx}, []*commonpb.Payload{payload(t, "old")})
	require.NoError(t, err)
	_, err = retrieveFrom(s, claims[0])
	require.NoError(t, err, "stored anew after its deletion")
}
