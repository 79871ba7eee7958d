// The workload's tool (bench/workload.Tool) as an Activity: a result of
// 2,048 bytes. (The OpenAI Agents SDK hands a tool its arguments, not its
// call ID, from which the Go tool derives its bytes; the size is the same.)
export const RESULT_BYTES = 2048;

export async function fetch(_args: unknown): Promise<string> {
  return 'fetched '.repeat(RESULT_BYTES / 8);
}
