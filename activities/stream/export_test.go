package stream

// SubscriberBuffer is the capacity of a subscription's channel.
const SubscriberBuffer = subscriberBuffer

// Waiting reports whether a Subscribe is waiting for an Open.
func Waiting(h *Hub) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.opened != nil
}

// Streams counts the streams the hub holds.
func Streams(h *Hub) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.streams)
}
