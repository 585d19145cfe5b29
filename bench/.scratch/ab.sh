#!/bin/bash
# usage: ab.sh <scratch file> <args...> : runs before/after alternately 4 times, prints both series
f=$1; shift
b=(); a=()
for i in 1 2 3 4; do
  b+=($(cd /tmp/restis-before && node --import tsx bench/.scratch/$f "$@"))
  a+=($(cd /work/main && node --import tsx bench/.scratch/$f "$@"))
done
echo "$f $*: before ${b[*]} | after ${a[*]}"
