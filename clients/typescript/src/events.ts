// Generated from schema/tether.schema.json by `npm run generate`; do not edit.
// Each session event type's data fields in order, the zero values of the required ones and the
// optional map fields (left out when empty): what Go's encoding of the event writes.
export interface EventShape {
  fields: readonly string[];
  zero: Readonly<Record<string, unknown>>;
  maps: readonly string[];
}

export const EventShapes: Readonly<Record<string, EventShape>> = {
  "agent/disposing": {
    "fields": [
      "cause"
    ],
    "zero": {
      "cause": ""
    },
    "maps": []
  },
  "assistant/attempt": {
    "fields": [
      "failure",
      "provider",
      "model",
      "stream"
    ],
    "zero": {
      "failure": {
        "kind": "",
        "message": ""
      }
    },
    "maps": []
  },
  "assistant/message": {
    "fields": [
      "text",
      "tool_calls",
      "usage",
      "finish_reason",
      "provider",
      "model",
      "default_model",
      "stream"
    ],
    "zero": {
      "usage": {
        "input_tokens": 0,
        "output_tokens": 0
      },
      "finish_reason": ""
    },
    "maps": []
  },
  "child/ended": {
    "fields": [
      "child_id",
      "status",
      "usage"
    ],
    "zero": {
      "child_id": "",
      "status": ""
    },
    "maps": []
  },
  "child/settled": {
    "fields": [
      "child_id",
      "turn",
      "reason",
      "error",
      "text",
      "usage"
    ],
    "zero": {
      "child_id": "",
      "turn": 0,
      "reason": ""
    },
    "maps": []
  },
  "child/started": {
    "fields": [
      "child_id",
      "call_id",
      "mode",
      "list",
      "budget"
    ],
    "zero": {
      "child_id": "",
      "mode": ""
    },
    "maps": []
  },
  "context/compacted": {
    "fields": [
      "text",
      "keep"
    ],
    "zero": {
      "keep": 0
    },
    "maps": []
  },
  "context/pruned": {
    "fields": [
      "call_ids"
    ],
    "zero": {
      "call_ids": null
    },
    "maps": []
  },
  "decision/made": {
    "fields": [
      "call_id",
      "approved",
      "decider",
      "text",
      "args",
      "original"
    ],
    "zero": {
      "call_id": "",
      "approved": false
    },
    "maps": []
  },
  "decision/requested": {
    "fields": [
      "call_id",
      "name",
      "kind",
      "since",
      "deadline"
    ],
    "zero": {
      "call_id": "",
      "name": "",
      "kind": "",
      "since": ""
    },
    "maps": []
  },
  "inbox/claimed": {
    "fields": [
      "message_id",
      "list",
      "turn"
    ],
    "zero": {
      "message_id": "",
      "list": "",
      "turn": 0
    },
    "maps": []
  },
  "inbox/discarded": {
    "fields": [
      "message_id",
      "list",
      "outcome",
      "cause"
    ],
    "zero": {
      "message_id": "",
      "list": "",
      "outcome": ""
    },
    "maps": []
  },
  "inbox/inserted": {
    "fields": [
      "message_id",
      "list",
      "content",
      "wake",
      "from"
    ],
    "zero": {
      "list": "",
      "wake": false
    },
    "maps": []
  },
  "inbox/scheduled": {
    "fields": [
      "message_id",
      "list",
      "content",
      "wake",
      "at"
    ],
    "zero": {
      "list": "",
      "wake": false,
      "at": ""
    },
    "maps": []
  },
  "maintenance/done": {
    "fields": [
      "task",
      "before",
      "after",
      "error"
    ],
    "zero": {
      "task": "",
      "before": 0,
      "after": 0
    },
    "maps": []
  },
  "maintenance/queued": {
    "fields": [
      "task"
    ],
    "zero": {
      "task": ""
    },
    "maps": []
  },
  "model/selected": {
    "fields": [
      "provider",
      "model",
      "effort",
      "refused",
      "resolved"
    ],
    "zero": {},
    "maps": []
  },
  "request/context": {
    "fields": [
      "messages",
      "tokens"
    ],
    "zero": {
      "messages": 0,
      "tokens": 0
    },
    "maps": []
  },
  "request/header": {
    "fields": [
      "provider",
      "model",
      "effort",
      "max_tokens",
      "tools"
    ],
    "zero": {},
    "maps": []
  },
  "runtime/context": {
    "fields": [
      "content"
    ],
    "zero": {},
    "maps": []
  },
  "session/forked": {
    "fields": [
      "source",
      "run",
      "at",
      "replaced_last",
      "replaced",
      "dropped"
    ],
    "zero": {
      "source": "",
      "at": 0
    },
    "maps": []
  },
  "session/rewound": {
    "fields": [
      "to_turn",
      "at",
      "past",
      "keep",
      "forget",
      "by"
    ],
    "zero": {
      "to_turn": 0,
      "at": 0,
      "past": 0,
      "keep": 0
    },
    "maps": []
  },
  "session/started": {
    "fields": [
      "hooks",
      "errors"
    ],
    "zero": {
      "hooks": null
    },
    "maps": []
  },
  "status": {
    "fields": [
      "status"
    ],
    "zero": {
      "status": ""
    },
    "maps": []
  },
  "step/end": {
    "fields": [
      "turn",
      "step"
    ],
    "zero": {
      "turn": 0,
      "step": 0
    },
    "maps": []
  },
  "step/start": {
    "fields": [
      "turn",
      "step",
      "provider",
      "model",
      "effort"
    ],
    "zero": {
      "turn": 0,
      "step": 0
    },
    "maps": []
  },
  "system/message": {
    "fields": [
      "content"
    ],
    "zero": {},
    "maps": []
  },
  "tool/call": {
    "fields": [
      "call_id",
      "name",
      "idempotency_key"
    ],
    "zero": {
      "call_id": "",
      "name": "",
      "idempotency_key": ""
    },
    "maps": []
  },
  "tool/result": {
    "fields": [
      "call_id",
      "name",
      "content",
      "is_error",
      "concludes_turn",
      "outcome"
    ],
    "zero": {
      "call_id": "",
      "name": "",
      "content": ""
    },
    "maps": []
  },
  "tools/listed": {
    "fields": [
      "servers"
    ],
    "zero": {
      "servers": null
    },
    "maps": []
  },
  "turn/canceling": {
    "fields": [
      "turn",
      "cause"
    ],
    "zero": {
      "turn": 0,
      "cause": ""
    },
    "maps": []
  },
  "turn/end": {
    "fields": [
      "turn",
      "reason",
      "error"
    ],
    "zero": {
      "turn": 0,
      "reason": ""
    },
    "maps": []
  },
  "turn/start": {
    "fields": [
      "turn",
      "retry_of"
    ],
    "zero": {
      "turn": 0
    },
    "maps": []
  },
  "user/message": {
    "fields": [
      "message_id",
      "content"
    ],
    "zero": {},
    "maps": []
  },
  "wait/started": {
    "fields": [
      "call_id",
      "until"
    ],
    "zero": {
      "call_id": "",
      "until": ""
    },
    "maps": []
  }
};
