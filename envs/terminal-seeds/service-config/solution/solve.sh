#!/bin/bash
set -e
mkdir -p /var/log/svc
cat > /app/service/svc.conf <<'END'
# svc configuration
port = 8081
workers = 8
log_file = /var/log/svc/svc.log
mode = production
END
bash /app/service/svc.sh check
