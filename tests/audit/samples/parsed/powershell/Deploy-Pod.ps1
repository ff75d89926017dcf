param([string]$Image = "runpod/pytorch:2.4.0", [string]$GpuType = "NVIDIA A40")

$Base = if ($env:RUNPOD_REST_URL) { $env:RUNPOD_REST_URL } else { "https://rest.runpod.io/v1" }
$Headers = @{ Authorization = "Bearer $($env:RUNPOD_API_KEY)" }

function Invoke-Rp([string]$Method, [string]$Path, $Body) {
    # Invoke-RestMethod -Uri "$Base/pods/reset"  (an old note, not code)
    $json = if ($Body) { $Body | ConvertTo-Json -Depth 5 } else { $null }
    Invoke-RestMethod -Method $Method -Uri "$Base$Path" -Headers $Headers -Body $json -ContentType "application/json"
}

$pod = Invoke-Rp -Method POST -Path "/pods" -Body @{ name = "ps"; imageName = $Image; gpuTypeIds = @($GpuType); volumeInGb = 20 }
while ($pod.desiredStatus -ne "RUNNING") {
    Start-Sleep -Seconds 5
    $pod = Invoke-Rp -Method GET -Path "/pods/$($pod.id)"
}
Invoke-RestMethod -Method Post -Uri "$Base/pods/$($pod.id)/stop" -Headers $Headers
