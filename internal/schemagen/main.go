package main

import (
	"flag"
	"fmt"
	"os"
)

//go:generate go run . -o ../../schema/tether.schema.json

func main() {
	out := flag.String("o", "schema/tether.schema.json", "file to write the contract to")
	flag.Parse()
	b, err := Generate()
	if err == nil {
		err = os.WriteFile(*out, b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "schemagen:", err)
		os.Exit(1)
	}
}
