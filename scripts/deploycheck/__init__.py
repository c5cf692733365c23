"""The deployment checks behind scripts/check-deploy.py: one module per part of deploy/."""
