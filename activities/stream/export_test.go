package stream

// SubscriberBuffer is the capacity of a subscription's channel.
const SubscriberBuffer = subscriberBuffer

// Subscribers counts the hub's subscriptions.
func Subscribers(h *Hub) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.active
}

// Streams counts the streams the hub holds.
func Streams(h *Hub) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.streams)
}
