# Runs a small job with --dump, then tools/verify_dump.py on the files it wrote.
file(REMOVE_RECURSE ${WORK_DIR})
foreach(log_n 1 5 8)
  execute_process(
    COMMAND ${ZKBATCH} --log-level warn run ${SOURCE_DIR}/jobs/smoke.toml --backend cpu-ref
            --db ${WORK_DIR}/dump.db --dump ${WORK_DIR}/n${log_n}
            --set circuit.log_n=${log_n} --set job.partitions=2
    RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "zkbatch run --dump exited with ${status}")
  endif()
  execute_process(COMMAND python3 ${SOURCE_DIR}/tools/verify_dump.py ${WORK_DIR}/n${log_n}
                  RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "verify_dump.py rejected the dump of log_n ${log_n}")
  endif()
endforeach()
