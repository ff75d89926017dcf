# RunpodOps.psm1 -- pod and endpoint helpers for the Windows build agents.
# Uses the v1 REST API (https://rest.runpod.io/v1) with a bearer key from $env:RUNPOD_API_KEY.

$script:RunpodBase = if ($env:RUNPOD_REST_URL) { $env:RUNPOD_REST_URL } else { 'https://rest.runpod.io/v1' }

function Get-RunpodHeaders {
    if (-not $env:RUNPOD_API_KEY) { throw 'RUNPOD_API_KEY is not set' }
    @{ Authorization = "Bearer $($env:RUNPOD_API_KEY)"; Accept = 'application/json' }
}

function Invoke-Runpod {
    [CmdletBinding()]
    param(
        [Parameter(Mandatory)] [ValidateSet('GET', 'POST', 'PATCH', 'DELETE')] [string] $Method,
        [Parameter(Mandatory)] [string] $Path,
        [hashtable] $Body,
        [int] $Retries = 3
    )
    $uri = "$script:RunpodBase$Path"
    for ($attempt = 1; ; $attempt++) {
        try {
            if ($Body) {
                $json = $Body | ConvertTo-Json -Depth 6
                return Invoke-RestMethod -Method $Method -Uri $uri -Headers (Get-RunpodHeaders) -Body $json -ContentType 'application/json'
            }
            return Invoke-RestMethod -Method $Method -Uri $uri -Headers (Get-RunpodHeaders) -TimeoutSec 60
        }
        catch {
            $status = $_.Exception.Response.StatusCode.value__
            if ($attempt -lt $Retries -and ($status -eq 429 -or $status -ge 500)) {
                Start-Sleep -Seconds ([math]::Pow(2, $attempt))
                continue
            }
            $message = ($_.ErrorDetails.Message | ConvertFrom-Json -ErrorAction SilentlyContinue).message
            throw "Runpod $Method $Path failed ($status): $message"
        }
    }
}

function Get-RunpodPod {
    param([string] $Id)
    if ($Id) {
        return Invoke-Runpod -Method GET -Path "/pods/$Id"
    }
    Invoke-Runpod -Method GET -Path '/pods' | ForEach-Object { $_ } |
        Select-Object id, name, desiredStatus, costPerHr
}

function New-RunpodBuildPod {
    param(
        [Parameter(Mandatory)] [string] $Name,
        [string] $Image = 'mcr.microsoft.com/dotnet/sdk:8.0',
        [string[]] $GpuTypes = @('NVIDIA RTX A4000'),
        [string] $NetworkVolumeId
    )
    $body = @{
        name              = $Name
        imageName         = $Image
        gpuTypeIds        = $GpuTypes
        gpuCount          = 1
        cloudType         = 'SECURE'
        containerDiskInGb = 40
        volumeInGb        = 0
        env               = @{ AGENT_POOL = 'gpu-build'; DOTNET_CLI_TELEMETRY_OPTOUT = '1' }
    }
    if ($NetworkVolumeId) { $body.networkVolumeId = $NetworkVolumeId }
    Invoke-Runpod -Method POST -Path '/pods' -Body $body
}

function Stop-RunpodPod {
    param([Parameter(Mandatory, ValueFromPipelineByPropertyName)] [Alias('id')] [string] $PodId)
    process { Invoke-Runpod -Method POST -Path "/pods/$PodId/stop" | Out-Null }
}

function Remove-RunpodPod {
    param([Parameter(Mandatory)] [string] $PodId)
    Invoke-Runpod -Method DELETE -Path "/pods/$PodId" | Out-Null
}

function Wait-RunpodPod {
    param([string] $PodId, [string] $Status = 'RUNNING', [int] $TimeoutSec = 600)
    $deadline = (Get-Date).AddSeconds($TimeoutSec)
    while ((Get-Date) -lt $deadline) {
        $pod = Invoke-Runpod -Method GET -Path "/pods/$PodId"
        if ($pod.desiredStatus -eq $Status) { return $pod }
        Start-Sleep -Seconds 10
    }
    throw "pod $PodId did not reach $Status"
}

function Set-RunpodEndpointWorkers {
    param([string] $EndpointId, [int] $Min, [int] $Max)
    $payload = @{ workersMin = $Min; workersMax = $Max } | ConvertTo-Json
    Invoke-RestMethod -Method Post -Uri "$script:RunpodBase/endpoints/$EndpointId/update" `
        -Headers (Get-RunpodHeaders) -Body $payload -ContentType 'application/json'
}

function Get-RunpodSpend {
    param([ValidateSet('pods', 'endpoints', 'networkvolumes')] [string] $Kind = 'pods')
    $query = @{ bucketSize = 'day' }
    $qs = ($query.GetEnumerator() | ForEach-Object { "$($_.Key)=$($_.Value)" }) -join '&'
    $records = Invoke-RestMethod -Uri "$script:RunpodBase/billing/${Kind}?$qs" -Headers (Get-RunpodHeaders)
    ($records | Measure-Object -Property amount -Sum).Sum
}

function Invoke-RunpodJob {
    param([string] $EndpointId, [hashtable] $InputData)
    # serverless job API, unaffected by the REST migration
    Invoke-RestMethod -Method Post -Uri "https://api.runpod.ai/v2/$EndpointId/runsync" `
        -Headers (Get-RunpodHeaders) -Body (@{ input = $InputData } | ConvertTo-Json -Depth 8) -ContentType 'application/json'
}

Export-ModuleMember -Function Get-RunpodPod, New-RunpodBuildPod, Stop-RunpodPod, Remove-RunpodPod, Wait-RunpodPod,
    Set-RunpodEndpointWorkers, Get-RunpodSpend, Invoke-RunpodJob
