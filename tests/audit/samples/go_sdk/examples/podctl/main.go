// Command podctl lists pods and stops idle ones.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"

	runpod "github.com/acme/runpod-go"
)

func main() {
	stopIdle := flag.Bool("stop-idle", false, "stop pods whose name starts with idle-")
	flag.Parse()

	opts := []runpod.Option{runpod.WithRetries(3)}
	if base := os.Getenv("RUNPOD_REST_URL"); base != "" {
		opts = append(opts, runpod.WithBaseURL(base))
	}
	client := runpod.New(os.Getenv("RUNPOD_API_KEY"), opts...)

	ctx := context.Background()
	pods, err := client.ListPods(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range pods {
		fmt.Printf("%-16s %-8s %6.3f/h %s\n", p.ID, p.DesiredStatus, p.CostPerHr, p.Name)
		if *stopIdle && p.DesiredStatus == "RUNNING" && len(p.Name) > 5 && p.Name[:5] == "idle-" {
			if err := client.StopPod(ctx, p.ID); err != nil {
				log.Printf("stop %s: %v", p.ID, err)
			}
		}
	}
	// Jobs go to the serverless job API, not the REST API.
	jobURL := fmt.Sprintf("https://api.runpod.ai/v2/%s/run", os.Getenv("RUNPOD_ENDPOINT_ID"))
	fmt.Println("submit jobs to", jobURL)
}
