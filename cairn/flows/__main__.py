from cairn.flows.cli.app import main

main()
