A2A=http://127.0.0.1:8290
H=(-H "Authorization: Bearer $TETHER_A2A_TOKEN" -H 'Content-Type: application/json')
curl -s $A2A/.well-known/agent-card.json
# → the root's card is the first profile's: `"name":"assistant"`, `"streaming":true`, `"scheme":"bearer"`
curl -s $A2A/agents/careful/.well-known/agent-card.json
# → `"name":"careful"`, `/agents/careful/`
curl -s $A2A/ -H 'Content-Type: application/json' -d '{"jsonrpc":"2.0","id":0,"method":"tasks/get","params":{"id":"x:y"}}'
# → without the token: `unauthorized`
curl -s $A2A/ "${H[@]}" -d '{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","role":"user","messageId":"m-1","contextId":"demo-1","parts":[{"kind":"text","text":"what is 6*7?"}]}}}'
# → task `"id":"demo-1:m-1"`, `"state":"completed"`, its answer artifact: `42`
curl -s $A2A/ "${H[@]}" -d '{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","role":"user","messageId":"m-1","contextId":"demo-1","parts":[{"kind":"text","text":"what is 6*7?"}]}}}'
# → the same message ID again is the same task, delivered once: `"id":"demo-1:m-1"`, `"tether.turn":1`
curl -sN $A2A/ "${H[@]}" -d '{"jsonrpc":"2.0","id":2,"method":"message/stream","params":{"message":{"kind":"message","role":"user","messageId":"m-2","contextId":"demo-1","parts":[{"kind":"text","text":"/say the tokens stream as the model writes them"}]}}}'
# → Server-Sent Events: the task `"kind":"task"`, live tokens `"append":true`, the settled answer `"lastChunk":true`, then `"final":true`
curl -s $A2A/ "${H[@]}" -d '{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"id":"demo-1:m-2"}}'
# → `"state":"completed"`, `the tokens stream as the model writes them`, `"tether.turn":2`
curl -sN $A2A/ "${H[@]}" -d '{"jsonrpc":"2.0","id":4,"method":"tasks/resubscribe","params":{"id":"demo-1:m-2"}}'
# → a settled task resubscribed is one event, its answer included: `the tokens stream as the model writes them`
curl -s $A2A/agents/careful/ "${H[@]}" -d '{"jsonrpc":"2.0","id":5,"method":"message/send","params":{"message":{"kind":"message","role":"user","messageId":"m-3","contextId":"demo-2","parts":[{"kind":"text","text":"what is 6*7?"}]}}}'
# → `"state":"input-required"`, `calculate waits for approval`
curl -s $A2A/agents/careful/ "${H[@]}" -d '{"jsonrpc":"2.0","id":6,"method":"message/send","params":{"message":{"kind":"message","role":"user","messageId":"m-4","contextId":"demo-2","taskId":"demo-2:m-3","parts":[{"kind":"text","text":"approve"}]}}}'
# → the reply resumes the task: `"id":"demo-2:m-3"`, `"state":"completed"`, `42`
curl -s $A2A/ "${H[@]}" -d '{"jsonrpc":"2.0","id":7,"method":"message/send","params":{"message":{"kind":"message","role":"user","messageId":"m-5","contextId":"demo-3","parts":[{"kind":"text","text":"/tool ask_human {\"question\":\"go on?\"}"}]}}}'
# → `"state":"input-required"`, `ask_human asks:`, `go on?`
curl -s $A2A/ "${H[@]}" -d '{"jsonrpc":"2.0","id":8,"method":"tasks/cancel","params":{"id":"demo-3:m-5"}}'
# → Tether's cancel of the turn: `"state":"canceled"`
curl -s $A2A/ "${H[@]}" -d '{"jsonrpc":"2.0","id":9,"method":"tasks/cancel","params":{"id":"demo-3:m-5"}}'
# → `"code":-32002`
curl -s $A2A/ "${H[@]}" -d '{"jsonrpc":"2.0","id":10,"method":"message/send","params":{"message":{"kind":"message","role":"user","contextId":"demo-1","parts":[{"kind":"text","text":"no ID"}]}}}'
# → `"code":-32602`, `messageId`
curl -s $A2A/ "${H[@]}" -d '{"jsonrpc":"2.0","id":11,"method":"tasks/explode","params":{}}'
# → `"code":-32601`
curl -s $A2A/ "${H[@]}" -d '{"jsonrpc":'
# → `"code":-32700`
