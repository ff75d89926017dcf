<#
.SYNOPSIS
  Create a GPU build agent pod, wait for it, register it, stop it after the build.
.EXAMPLE
  ./deploy-build-agent.ps1 -Name agent-17 -Build 2026.11.23.4
  # calls POST https://rest.runpod.io/v1/pods, then POST /pods/{podId}/stop
#>
[CmdletBinding()]
param(
    [Parameter(Mandatory)] [string] $Name,
    [Parameter(Mandatory)] [string] $Build,
    [switch] $KeepRunning
)
$ErrorActionPreference = 'Stop'
Import-Module "$PSScriptRoot/RunpodOps.psm1" -Force

Write-Verbose "creating $Name for build $Build"
$pod = New-RunpodBuildPod -Name $Name -GpuTypes 'NVIDIA RTX A4000', 'NVIDIA RTX A4500'
$pod = Wait-RunpodPod -PodId $pod.id
Write-Host "agent $($pod.id) is $($pod.desiredStatus) at `$$($pod.costPerHr)/h"

# direct call kept from the first version of this script
$registries = Invoke-RestMethod -Uri 'https://rest.runpod.io/v1/containerregistryauth' -Headers @{ Authorization = "Bearer $env:RUNPOD_API_KEY" }
Write-Host "registries: $(($registries | ForEach-Object name) -join ', ')"

if (-not $KeepRunning) {
    $pod | Stop-RunpodPod
}
