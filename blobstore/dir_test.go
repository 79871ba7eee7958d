package blobstore_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	sdkpb "go.temporal.io/api/sdk/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/tetherdev/tether/blobstore"
)

func store(t *testing.T, d *blobstore.Dir, ps ...*commonpb.Payload) []converter.StorageDriverClaim {
	t.Helper()
	claims, err := d.Store(converter.StorageDriverStoreContext{Context: context.Background()}, ps)
	require.NoError(t, err)
	return claims
}

func retrieve(d *blobstore.Dir, claims ...converter.StorageDriverClaim) ([]*commonpb.Payload, error) {
	return d.Retrieve(converter.StorageDriverRetrieveContext{Context: context.Background()}, claims)
}

func payload(t *testing.T, v any) *commonpb.Payload {
	t.Helper()
	p, err := converter.GetDefaultDataConverter().ToPayload(v)
	require.NoError(t, err)
	return p
}

func TestDirRoundTripsPayloadsAsPrivateContentAddressedFiles(t *testing.T) {
	d, err := blobstore.NewDir(filepath.Join(t.TempDir(), "blobs"))
	require.NoError(t, err)
	big := strings.Repeat("x", 1<<20)
	claims := store(t, d, payload(t, big), payload(t, "small"), payload(t, big))
	require.Len(t, claims, 3)
	require.Equal(t, claims[0], claims[2], "the same payload is the same blob")
	require.NotEqual(t, claims[0], claims[1])

	got, err := retrieve(d, claims...)
	require.NoError(t, err)
	var s string
	require.NoError(t, converter.GetDefaultDataConverter().FromPayload(got[0], &s))
	require.Equal(t, big, s)
	require.NoError(t, converter.GetDefaultDataConverter().FromPayload(got[1], &s))
	require.Equal(t, "small", s)

	info, err := os.Stat(d.Path())
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), info.Mode().Perm(), "the directory is private")
	files, err := os.ReadDir(d.Path())
	require.NoError(t, err)
	require.Len(t, files, 2, "two distinct blobs, no temporary files left")
	for _, f := range files {
		info, err := f.Info()
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "%s is private", f.Name())
		require.Len(t, f.Name(), 64, "named by its sha256")
	}
}

func TestDirNamesTheClaimAndFileOfAMissingOrCorruptBlob(t *testing.T) {
	d, err := blobstore.NewDir(t.TempDir())
	require.NoError(t, err)
	claims := store(t, d, payload(t, "kept"), payload(t, "lost"))
	kept, lost := claims[0].ClaimData[blobstore.ClaimSHA256], claims[1].ClaimData[blobstore.ClaimSHA256]
	require.NoError(t, os.Remove(filepath.Join(d.Path(), lost)))

	_, err = retrieve(d, claims...)
	require.ErrorIs(t, err, blobstore.ErrMissing)
	require.ErrorContains(t, err, "sha256:"+lost)
	require.ErrorContains(t, err, filepath.Join(d.Path(), lost))

	require.NoError(t, os.WriteFile(filepath.Join(d.Path(), kept), []byte("tampered"), 0o600))
	_, err = retrieve(d, claims[0])
	require.ErrorIs(t, err, blobstore.ErrCorrupt)
	require.ErrorContains(t, err, filepath.Join(d.Path(), kept))

	// Storing the payload again brings the missing blob back.
	store(t, d, payload(t, "lost"))
	_, err = retrieve(d, claims[1])
	require.NoError(t, err)
}

func TestDirRefusesAClaimThatNamesNoSHA256(t *testing.T) {
	d, err := blobstore.NewDir(t.TempDir())
	require.NoError(t, err)
	for _, sum := range []string{"", "../../etc/passwd", strings.Repeat("z", 64), "abcd"} {
		_, err := retrieve(d, converter.StorageDriverClaim{ClaimData: map[string]string{blobstore.ClaimSHA256: sum}})
		require.ErrorIs(t, err, blobstore.ErrBadClaim, "claim %q", sum)
	}
}

// reference is the payload the SDK leaves in history for a stored one.
func reference(t *testing.T, claim converter.StorageDriverClaim) *commonpb.Payload {
	t.Helper()
	ref := &sdkpb.ExternalStorageReference{DriverName: blobstore.DirDriverName, ClaimData: claim.ClaimData}
	b, err := protojson.Marshal(ref)
	require.NoError(t, err)
	return &commonpb.Payload{Metadata: map[string][]byte{
		converter.MetadataEncoding:    []byte("json/protobuf"),
		converter.MetadataMessageType: []byte(string(ref.ProtoReflect().Descriptor().FullName())),
	}, Data: b}
}

func TestResolvingDecodesAClaimAsItsPayload(t *testing.T) {
	d, err := blobstore.NewDir(t.TempDir())
	require.NoError(t, err)
	claims := store(t, d, payload(t, "the whole output"))
	ref := reference(t, claims[0])
	require.True(t, blobstore.IsReference(ref))
	require.False(t, blobstore.IsReference(payload(t, "inline")))

	dc := blobstore.Resolving(converter.GetDefaultDataConverter(), d)
	var s string
	require.NoError(t, dc.FromPayload(ref, &s))
	require.Equal(t, "the whole output", s)
	var a, b string
	require.NoError(t, dc.FromPayloads(&commonpb.Payloads{Payloads: []*commonpb.Payload{payload(t, "inline"), ref}}, &a, &b))
	require.Equal(t, []string{"inline", "the whole output"}, []string{a, b})
	require.Error(t, converter.GetDefaultDataConverter().FromPayload(ref, &s), "the control: unresolved, a claim is no string")

	require.NoError(t, os.Remove(filepath.Join(d.Path(), claims[0].ClaimData[blobstore.ClaimSHA256])))
	require.ErrorIs(t, dc.FromPayload(ref, &s), blobstore.ErrMissing)
}

func TestDirStoresTheSamePayloadFromManyWritersAsOneWholeFile(t *testing.T) {
	d, err := blobstore.NewDir(t.TempDir())
	require.NoError(t, err)
	p := payload(t, strings.Repeat("y", 512<<10))
	claims := make([][]converter.StorageDriverClaim, 8)
	errs := make([]error, 8)
	var wg sync.WaitGroup
	for i := range claims {
		wg.Go(func() {
			claims[i], errs[i] = d.Store(converter.StorageDriverStoreContext{Context: context.Background()}, []*commonpb.Payload{p})
		})
	}
	wg.Wait()
	for i, c := range claims {
		require.NoError(t, errs[i])
		got, err := retrieve(d, c...)
		require.NoError(t, err)
		require.Equal(t, p.GetData(), got[0].GetData())
	}
	files, err := os.ReadDir(d.Path())
	require.NoError(t, err)
	require.Len(t, files, 1, "one blob, no temporary file left")
}

func TestDirDeletesOnlyWhatWasLastStoredBeforeTheCutoff(t *testing.T) {
	d, err := blobstore.NewDir(t.TempDir())
	require.NoError(t, err)
	testDeleteKeepsWhatWasStoredSince(t, d, func(sum string, at time.Time) {
		require.NoError(t, os.Chtimes(filepath.Join(d.Path(), sum), at, at))
	})
	files, err := os.ReadDir(d.Path())
	require.NoError(t, err)
	require.Len(t, files, 2, "no file left aside")
}
