package eventlog

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestARefusedModelSwitchIsRecordedAndChangesNoSelection(t *testing.T) {
	s := NewState(0)
	require.NoError(t, s.Apply(ModelSelected{Selection: Selection{Provider: "p", Model: "m"}}))
	refused := ModelSelected{Selection: Selection{Provider: "nope"}, Refused: `provider "nope" is not offered`}
	require.NoError(t, s.Apply(refused))
	require.Equal(t, Selection{Provider: "p", Model: "m"}, s.Selection)

	env, err := Encode(3, time.Time{}, "", refused)
	require.NoError(t, err)
	back, err := Decode(env)
	require.NoError(t, err)
	require.Equal(t, refused, back, "the reason survives the wire")
}
