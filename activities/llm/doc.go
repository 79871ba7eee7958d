// Package llm holds the data a model provider adapter exchanges with the model
// activity: the request, tool specs and the normalised failure error.
//
// It never does I/O and never holds a credential. Adapters live in sibling
// packages (scripted, openai); the model activity declares the Provider
// interface it needs.
package llm
