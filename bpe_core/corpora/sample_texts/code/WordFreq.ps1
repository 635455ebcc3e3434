<#
.SYNOPSIS
    Count how often each word occurs in a text and print the most common ones.
.PARAMETER Path
    The text file to read; standard input when omitted.
.EXAMPLE
    Get-Content story.txt | ./WordFreq.ps1
#>
[CmdletBinding()]
param(
    [Parameter(Position = 0)]
    [string] $Path,

    [ValidateRange(1, 1000)]
    [int] $Limit = 10
)

Set-StrictMode -Version Latest
$ErrorActionPreference = 'Stop'

function Get-WordCount {
    param([Parameter(Mandatory)] [AllowEmptyString()] [string] $Text)
    $counts = [System.Collections.Generic.Dictionary[string, int]]::new([StringComparer]::Ordinal)
    foreach ($match in [regex]::Matches($Text, '\p{L}+')) {
        $word = $match.Value.ToLowerInvariant()
        $counts[$word] = if ($counts.ContainsKey($word)) { $counts[$word] + 1 } else { 1 }
    }
    return $counts
}

$text = if ($Path) {
    Get-Content -LiteralPath $Path -Raw -Encoding UTF8
} else {
    $input | Out-String
}

$counts = Get-WordCount -Text ([string]$text)
$total = ($counts.Values | Measure-Object -Sum).Sum
if ($null -eq $total) { $total = 0 }
'{0} words, {1} distinct' -f $total, $counts.Count

# The most frequent words, ties broken alphabetically.
$counts.GetEnumerator() |
    Sort-Object -Property @{ Expression = 'Value'; Descending = $true }, @{ Expression = 'Key'; Ascending = $true } |
    Select-Object -First $Limit |
    ForEach-Object {
        $share = 100.0 * $_.Value / $total
        '{0,-15} {1,6} {2,6:F2}%' -f $_.Key, $_.Value, $share
    }
