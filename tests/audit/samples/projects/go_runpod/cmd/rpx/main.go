package main

import (
	"fmt"
	"os"

	"github.com/example/go-runpod/runpod"
)

func main() {
	c := runpod.New(os.Getenv("RUNPOD_API_KEY"))
	if len(os.Args) > 1 && os.Args[1] == "volumes" {
		vols, err := c.ListVolumes()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for _, v := range vols {
			fmt.Printf("%s\t%s\t%dGB\n", v.ID, v.Name, v.Size)
		}
		return
	}
	var raw []map[string]any
	if err := c.Get("/templates", &raw); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(len(raw), "templates")
}
