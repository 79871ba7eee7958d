package chaos

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/tetherdev/tether/activities/scripted"
	"github.com/tetherdev/tether/signals"
)

// kind is what an agent of the fleet does, round after round.
type kind string

const (
	kindTools    kind = "tools"    // two parallel journaled calls a turn
	kindSteer    kind = "steer"    // a three-step turn steered mid-way, a message injected before it
	kindQueue    kind = "queue"    // three turns queued back to back (a followup, another, a send)
	kindLong     kind = "long"     // a twelve-step turn, continued as new between steps
	kindCompact  kind = "compact"  // long results and answers in a small window; compaction while idle
	kindSpawn    kind = "spawn"    // a child waited for, every other round one detached that reports back
	kindApproval kind = "approval" // the slow tool needs approval; the harness approves or denies
	kindAsk      kind = "ask"      // ask_human, answered by the harness
	kindWait     kind = "wait"     // a durable wait beside a tool call
	kindStream   kind = "stream"   // long streamed answers, read live by a client
)

var kinds = []kind{kindTools, kindSteer, kindQueue, kindLong, kindCompact, kindSpawn, kindApproval, kindAsk, kindWait, kindStream}

// options of an agent of kind k.
func (k kind) options() signals.AgentOptions {
	o := signals.AgentOptions{Provider: scripted.Name, Tools: []string{"echo", "slow"}}
	switch k {
	case kindLong:
		o.MaxSteps = 40
	case kindCompact:
		o.Compaction = &signals.Compaction{Window: 800, KeepRecent: 2, PruneOver: 300}
	case kindSpawn:
		o.Tools = append(o.Tools, signals.SpawnTool)
	case kindApproval:
		o.Approval = &signals.ApprovalPolicy{Tools: []string{"slow"}}
	case kindAsk:
		o.Tools = append(o.Tools, signals.AskHumanTool)
	case kindWait:
		o.Tools = append(o.Tools, signals.WaitTool)
		o.Wait = &signals.WaitPolicy{Max: time.Minute}
	}
	return o
}

// Message operations of a round.
const (
	opFollowup = "followup"
	opSteer    = "steer"
	opInject   = "inject"
	opSend     = "send" // to next-turn, waking
)

// send is one message of a round: its ID is "<agent>-r<round>-<tag>".
type send struct {
	op, tag, content string
	pause            time.Duration // before sending
}

// plan is one round of an agent: the messages in order, and whether to
// compact once the agent is idle again.
type plan struct {
	sends    []send
	maintain bool
}

// round plans round r of kind k.
func (k kind) round(r int, rng *rand.Rand) plan {
	one := func(content string) plan { return plan{sends: []send{{op: opFollowup, tag: "f", content: content}}} }
	switch k {
	case kindSteer:
		return plan{sends: []send{
			{op: opInject, tag: "i", content: fmt.Sprintf("context for round %d", r)},
			{op: opFollowup, tag: "f", content: "/repeat 3 slow {}"},
			{op: opSteer, tag: "s", content: fmt.Sprintf("steer %d: keep going", r), pause: jitter(rng, 500*time.Millisecond, 3*time.Second)},
		}}
	case kindQueue:
		return plan{sends: []send{
			{op: opFollowup, tag: "a", content: `/tool echo {"text":"first"}`},
			{op: opFollowup, tag: "b", content: fmt.Sprintf("/say queued answer %d", r)},
			{op: opSend, tag: "c", content: "/tool slow {}"},
		}}
	case kindLong:
		return one(`/repeat 12 echo {"text":"step"}`)
	case kindCompact:
		return plan{maintain: r%2 == 0, sends: []send{
			{op: opFollowup, tag: "a", content: fmt.Sprintf(`/tool echo {"text":%q}`, lorem(120))},
			{op: opFollowup, tag: "b", content: "/say " + lorem(80)},
		}}
	case kindSpawn:
		content := `/tool spawn_agent {"task":"/tool slow {}","mode":"wait"}`
		if r%2 == 1 {
			content += "\n" + `/tool spawn_agent {"task":"/tool echo {}","mode":"detach"}`
		}
		return one(content)
	case kindApproval:
		return one("/tool slow {}\n/tool echo {}")
	case kindAsk:
		return one(fmt.Sprintf(`/tool ask_human {"question":"a number for round %d?"}`, r) + "\n/tool echo {}")
	case kindWait:
		return one(`/tool wait {"seconds":3}` + "\n/tool echo {}")
	case kindStream:
		return plan{sends: []send{
			{op: opFollowup, tag: "a", content: "/say " + lorem(30)},
			{op: opFollowup, tag: "b", content: `/tool echo {"text":"after the stream"}`},
		}}
	}
	return one(fmt.Sprintf(`/tool echo {"text":"round %d"}`, r) + "\n/tool slow {}")
}

// lorem is n words of filler.
func lorem(n int) string {
	words := strings.Fields("lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor")
	out := make([]string, n)
	for i := range out {
		out[i] = words[i%len(words)]
	}
	return strings.Join(out, " ")
}

// jitter is a duration drawn uniformly from [lo, hi).
func jitter(rng *rand.Rand, lo, hi time.Duration) time.Duration {
	return lo + time.Duration(rng.Int64N(int64(hi-lo)))
}
