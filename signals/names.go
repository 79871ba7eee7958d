package signals

// Durable names. They are written to Temporal history and visibility, so a
// value is never renamed; renaming a Go identifier renames nothing.
const (
	// TaskQueue is the default task queue of agent workflows and activities.
	TaskQueue = "tether"

	// AgentWorkflow is the workflow type of every agent. Workflow ID = agent ID.
	AgentWorkflow = "tether.Agent"

	// ModelActivity makes one model request.
	ModelActivity = "tether.Model"
	// ToolActivity runs one tool call.
	ToolActivity = "tether.Tool"
)

// Search attributes an operator filters agents by in the Temporal UI.
const (
	AttrStatus = "TetherStatus" // Keyword: idle | running
	AttrModel  = "TetherModel"  // Keyword: provider/model of the agent
	AttrParent = "TetherParent" // Keyword: parent agent ID, empty for a root agent
	AttrTurn   = "TetherTurn"   // Int: the last opened turn
)

// SearchAttributeKinds lists Tether's custom search attributes with their
// indexed types as Temporal names them; namespaces must register them.
var SearchAttributeKinds = map[string]string{
	AttrStatus: "Keyword",
	AttrModel:  "Keyword",
	AttrParent: "Keyword",
	AttrTurn:   "Int",
}
