#!/usr/bin/env bash
# Installs the Debian packages dalembert needs, if any is missing (apt-get update first).
set -euo pipefail
packages=(cmake g++ make libboost-dev libeigen3-dev nlohmann-json3-dev libtbb-dev catch2 libbenchmark-dev python3 python3-matplotlib python3-pil
          libopenmpi-dev openmpi-bin procps pybind11-dev python3-dev python3-pytest python3-pandas python3-numpy
          python3-scipy python3-sympy)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "dalembert: installing missing Debian packages: ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
