#!/bin/bash
# A Slurm job array: the ensemble in N shards, one array task each, then one job that merges
# them (README "Beyond one machine"). Submit both; the merge waits for the whole array:
#
#   jid=$(sbatch --parsable examples/slurm-array.sh)
#   sbatch --dependency=afterok:$jid --wrap 'phaseflow merge runs/disk/shard-* --out runs/disk/all'
#
# Every task runs the same command but --shard; the merged stats.csv and states/ are
# byte-identical to one run of the whole ensemble on the same engine type and precision.
#SBATCH --job-name=phaseflow-shards
#SBATCH --array=0-7
#SBATCH --gpus-per-task=1
#SBATCH --time=02:00:00
set -euo pipefail
N=8
phaseflow run --system pendulum --method verlet --ensemble disk --points 1000000000 \
  --dt 0.01 --steps 100000 --snapshot-every 1000 --precision f32 --compensated \
  --shard "${SLURM_ARRAY_TASK_ID}/${N}" --quiet --out "runs/disk/shard-${SLURM_ARRAY_TASK_ID}"
