# shellcheck shell=bash
# The sweep table's format, in one place (sourced by slurm/submit-sweep.sh on the login node and
# by slurm/sweep.sbatch in each array task, so both read a row the same way):
#   collective  algorithms  nodes  ranks  sizes  [further ringbench options...]
# One configuration per line; lines starting with # and blank lines are skipped; array task i runs
# the i-th remaining line. Lists are comma-separated, as ringbench takes them.

# rb_table_rows TABLE: the configuration lines, one per array task, in order.
rb_table_rows() {
  grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$1" || true
}

# rb_parse_row LINE: sets row_collective, row_algorithms, row_nodes, row_ranks, row_sizes and
# row_options; on a malformed line prints why (one line, naming the field) and returns 1.
rb_parse_row() {
  local line=$1
  read -r row_collective row_algorithms row_nodes row_ranks row_sizes row_options <<< "$line"
  local columns="the columns are: collective algorithms nodes ranks sizes [options]"
  if [[ ! ${row_nodes:-} =~ ^[1-9][0-9]*$ ]]; then
    echo "nodes '${row_nodes:-}' is not a positive number ($columns)"
    return 1
  fi
  # A table written before the nodes column existed has its sizes here: say so, not just "bad".
  if [[ ! ${row_ranks:-} =~ ^[1-9][0-9]*$ ]]; then
    echo "ranks '${row_ranks:-}' is not a positive number ($columns; a table without the nodes column needs one: 1 for a single node)"
    return 1
  fi
  if [ -z "${row_sizes:-}" ] || [[ $row_sizes == -* ]]; then
    echo "no message sizes after the world size ($columns)"
    return 1
  fi
  if [ "$row_ranks" -lt "$row_nodes" ]; then
    echo "$row_ranks rank(s) on $row_nodes node(s) leaves a node without a rank"
    return 1
  fi
  return 0
}
