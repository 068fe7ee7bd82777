#!/bin/bash
cat > /app/config/app.ini <<'END'
[server]
host = 127.0.0.1
port = 8080

[logging]
level = info
END
