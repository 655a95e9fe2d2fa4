from cairn.flows.cli import main

main()
