# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_kubectl_lbdoctor_global_optspecs
    string join \n kubeconfig= context= cluster= user= n/namespace= A/all-namespaces request-timeout= chunk-size= from= fill-from-cluster demo= o/output= color= no-headers fail-on= ignore-exclude-lb= lb-class= memberlist= bgp-type= metallb-version= h/help V/version
end

function __fish_kubectl_lbdoctor_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_kubectl_lbdoctor_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_kubectl_lbdoctor_using_subcommand
    set -l cmd (__fish_kubectl_lbdoctor_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_needs_command" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config, else in-cluster)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_needs_command" -l context -d 'The kubeconfig context to use (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_needs_command" -l cluster -d 'The kubeconfig cluster to use (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_needs_command" -l user -d 'The kubeconfig user to use (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_needs_command" -s n -l namespace -d 'Only this namespace: explain and history default to the context\'s; check and simulate cover every namespace unless -n is given' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_needs_command" -l request-timeout -d 'How long to wait for one API request, e.g. 30s, 1m; 0 waits forever (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_needs_command" -l chunk-size -d 'Objects per page when listing (kubectl\'s --chunk-size)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_needs_command" -l from -d 'Read a snapshot instead of a cluster: file, directory, archive (metallb_report.tgz, a sysdump .zip) or - (repeatable)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_needs_command" -l demo -d 'Run on a demo cluster built into the binary instead: healthy, or trap (nodeSelectors that pick only excluded nodes)' -r -f -a "healthy\t'testdata/clusters/homelab.yaml: eight nodes, ten Services, one of them without endpoints'
trap\t'testdata/clusters/homelab-trap.yaml: the L2Advertisement selects only exclude-labelled nodes'"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_needs_command" -s o -l output -d 'Output format [default: table; json for snapshot]' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t'Names only, one per line (`check`, `explain`): `service/NAME`, `ipaddresspool.metallb.io/NAME`, as kubectl prints them'
junit\t'JUnit XML (`check` only): a testcase per finding code × object'
sarif\t'SARIF 2.1.0 (`check` only): code-scanning results with a rule per finding code'
html\t'One self-contained HTML page (`check`, `explain`, `history`)'"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_needs_command" -l color -d 'Colour: auto follows the terminal, NO_COLOR and TERM=dumb' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_needs_command" -l fail-on -d 'Exit 1 when a finding is at or above this severity' -r -f -a "error\t''
warning\t''
info\t''
never\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_needs_command" -l ignore-exclude-lb -d 'Behave as speakers run with --ignore-exclude-lb (default: what the snapshot shows)' -r -f -a "true\t''
false\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_needs_command" -l lb-class -d 'The speakers\' --lb-class (default: what the snapshot shows, else unset)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_needs_command" -l memberlist -d 'Speaker memberlist (default: what the snapshot shows)' -r -f -a "enabled\t''
disabled\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_needs_command" -l bgp-type -d 'MetalLB BGP backend (default: what the snapshot shows, else native)' -r -f -a "native\t''
frr\t''
frr-k8s\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_needs_command" -l metallb-version -d 'Which MetalLB release\'s rules to replay, for the speakers and the controller: v0.13.0 … v0.16.1 or main (default: each from its image tag, else the Helm chart labels, else what the objects imply)' -r -f -a "v0.13.0\t''
v0.13.1\t''
v0.13.2\t''
v0.13.3\t''
v0.13.4\t''
v0.13.5\t''
v0.13.6\t''
v0.13.7\t''
v0.13.8\t''
v0.13.9\t''
v0.13.10\t''
v0.13.11\t''
v0.13.12\t''
v0.14.0\t''
v0.14.1\t''
v0.14.2\t''
v0.14.3\t''
v0.14.4\t''
v0.14.5\t''
v0.14.6\t''
v0.14.7\t''
v0.14.8\t''
v0.14.9\t''
v0.15.0\t''
v0.15.1\t''
v0.15.2\t''
v0.15.3\t''
v0.16.0\t''
v0.16.1\t''
main\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_needs_command" -s A -l all-namespaces -d 'Every namespace'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_needs_command" -l fill-from-cluster -d 'Take what the --from bundles lack (MetalLB\'s report: Nodes, Services, EndpointSlices, Pods) from the cluster kubectl reads'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_needs_command" -l no-headers -d 'Tables without their header row (for scripts)'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_needs_command" -s V -l version -d 'Print version'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_needs_command" -f -a "explain" -d 'Explain one Service (allocation, every node, every filter) or list them; or MetalLB\'s pools'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_needs_command" -f -a "check" -d 'Check every Service and the MetalLB configuration; exit 1 on findings (for CI)'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_needs_command" -f -a "simulate" -d 'What moves if nodes go down, labels change or edited objects are applied: every engine run before and after'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_needs_command" -f -a "history" -d 'How often each IP changed owner, and why: speaker logs, nodeAssigned Events, ServiceL2Status, restarts'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_needs_command" -f -a "snapshot" -d 'Save what the engines read from the live cluster, for --from later (JSON, or -o yaml)'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_needs_command" -f -a "arping" -d 'Who answers ARP/NDP for an IP right now: every MAC, not only the first (Linux; root or CAP_NET_RAW)'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_needs_command" -f -a "announce" -d 'Answer ARP/NDP for IPs from this host, as MetalLB\'s speaker does: a last resort (Linux; root or CAP_NET_RAW)'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_needs_command" -f -a "version" -d 'Print the version, git commit, build date and Kubernetes API version (-o json for CI)'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_needs_command" -f -a "completion" -d 'Print a shell completion script: bash, zsh, fish, or kubectl (the kubectl_complete-lbdoctor script)'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand explain" -l nodes -d 'Per-node rows: top (the first ranks and a line per filter) or all (every node, as -o wide) [default: all for one Service on up to 20 nodes, else top]' -r -f -a "top\t'The winner and the next ranks (5), and per filter a count and the first names'
all\t'Every node, every session'"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand explain" -l timeout -d 'With --watch: end after this long (e.g. 10m, for a CI canary) [default: until Ctrl-C]' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand explain" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config, else in-cluster)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand explain" -l context -d 'The kubeconfig context to use (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand explain" -l cluster -d 'The kubeconfig cluster to use (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand explain" -l user -d 'The kubeconfig user to use (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand explain" -s n -l namespace -d 'Only this namespace: explain and history default to the context\'s; check and simulate cover every namespace unless -n is given' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand explain" -l request-timeout -d 'How long to wait for one API request, e.g. 30s, 1m; 0 waits forever (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand explain" -l chunk-size -d 'Objects per page when listing (kubectl\'s --chunk-size)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand explain" -l from -d 'Read a snapshot instead of a cluster: file, directory, archive (metallb_report.tgz, a sysdump .zip) or - (repeatable)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand explain" -l demo -d 'Run on a demo cluster built into the binary instead: healthy, or trap (nodeSelectors that pick only excluded nodes)' -r -f -a "healthy\t'testdata/clusters/homelab.yaml: eight nodes, ten Services, one of them without endpoints'
trap\t'testdata/clusters/homelab-trap.yaml: the L2Advertisement selects only exclude-labelled nodes'"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand explain" -s o -l output -d 'Output format [default: table; json for snapshot]' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t'Names only, one per line (`check`, `explain`): `service/NAME`, `ipaddresspool.metallb.io/NAME`, as kubectl prints them'
junit\t'JUnit XML (`check` only): a testcase per finding code × object'
sarif\t'SARIF 2.1.0 (`check` only): code-scanning results with a rule per finding code'
html\t'One self-contained HTML page (`check`, `explain`, `history`)'"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand explain" -l color -d 'Colour: auto follows the terminal, NO_COLOR and TERM=dumb' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand explain" -l fail-on -d 'Exit 1 when a finding is at or above this severity' -r -f -a "error\t''
warning\t''
info\t''
never\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand explain" -l ignore-exclude-lb -d 'Behave as speakers run with --ignore-exclude-lb (default: what the snapshot shows)' -r -f -a "true\t''
false\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand explain" -l lb-class -d 'The speakers\' --lb-class (default: what the snapshot shows, else unset)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand explain" -l memberlist -d 'Speaker memberlist (default: what the snapshot shows)' -r -f -a "enabled\t''
disabled\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand explain" -l bgp-type -d 'MetalLB BGP backend (default: what the snapshot shows, else native)' -r -f -a "native\t''
frr\t''
frr-k8s\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand explain" -l metallb-version -d 'Which MetalLB release\'s rules to replay, for the speakers and the controller: v0.13.0 … v0.16.1 or main (default: each from its image tag, else the Helm chart labels, else what the objects imply)' -r -f -a "v0.13.0\t''
v0.13.1\t''
v0.13.2\t''
v0.13.3\t''
v0.13.4\t''
v0.13.5\t''
v0.13.6\t''
v0.13.7\t''
v0.13.8\t''
v0.13.9\t''
v0.13.10\t''
v0.13.11\t''
v0.13.12\t''
v0.14.0\t''
v0.14.1\t''
v0.14.2\t''
v0.14.3\t''
v0.14.4\t''
v0.14.5\t''
v0.14.6\t''
v0.14.7\t''
v0.14.8\t''
v0.14.9\t''
v0.15.0\t''
v0.15.1\t''
v0.15.2\t''
v0.15.3\t''
v0.16.0\t''
v0.16.1\t''
main\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand explain" -s w -l watch -d 'Keep watching the cluster and print a line per change (announcer, status, allocation, causes)'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand explain" -s A -l all-namespaces -d 'Every namespace'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand explain" -l fill-from-cluster -d 'Take what the --from bundles lack (MetalLB\'s report: Nodes, Services, EndpointSlices, Pods) from the cluster kubectl reads'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand explain" -l no-headers -d 'Tables without their header row (for scripts)'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand explain" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand explain" -s V -l version -d 'Print version'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand check" -l ignore -d 'Finding codes to suppress everywhere, e.g. LBD106,LBD202 (must be known codes)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand check" -l config -d 'Suppressions file [default: ./.lbdoctor.yaml when it exists]' -r -F
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand check" -l nodes -d 'Per-node rows in -o json/yaml: top (the first ranks and a group per filter) or all' -r -f -a "top\t'The winner and the next ranks (5), and per filter a count and the first names'
all\t'Every node, every session'"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand check" -l timeout -d 'With --watch: end after this long (e.g. 10m, for a CI canary) [default: until Ctrl-C]' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand check" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config, else in-cluster)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand check" -l context -d 'The kubeconfig context to use (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand check" -l cluster -d 'The kubeconfig cluster to use (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand check" -l user -d 'The kubeconfig user to use (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand check" -s n -l namespace -d 'Only this namespace: explain and history default to the context\'s; check and simulate cover every namespace unless -n is given' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand check" -l request-timeout -d 'How long to wait for one API request, e.g. 30s, 1m; 0 waits forever (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand check" -l chunk-size -d 'Objects per page when listing (kubectl\'s --chunk-size)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand check" -l from -d 'Read a snapshot instead of a cluster: file, directory, archive (metallb_report.tgz, a sysdump .zip) or - (repeatable)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand check" -l demo -d 'Run on a demo cluster built into the binary instead: healthy, or trap (nodeSelectors that pick only excluded nodes)' -r -f -a "healthy\t'testdata/clusters/homelab.yaml: eight nodes, ten Services, one of them without endpoints'
trap\t'testdata/clusters/homelab-trap.yaml: the L2Advertisement selects only exclude-labelled nodes'"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand check" -s o -l output -d 'Output format [default: table; json for snapshot]' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t'Names only, one per line (`check`, `explain`): `service/NAME`, `ipaddresspool.metallb.io/NAME`, as kubectl prints them'
junit\t'JUnit XML (`check` only): a testcase per finding code × object'
sarif\t'SARIF 2.1.0 (`check` only): code-scanning results with a rule per finding code'
html\t'One self-contained HTML page (`check`, `explain`, `history`)'"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand check" -l color -d 'Colour: auto follows the terminal, NO_COLOR and TERM=dumb' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand check" -l fail-on -d 'Exit 1 when a finding is at or above this severity' -r -f -a "error\t''
warning\t''
info\t''
never\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand check" -l ignore-exclude-lb -d 'Behave as speakers run with --ignore-exclude-lb (default: what the snapshot shows)' -r -f -a "true\t''
false\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand check" -l lb-class -d 'The speakers\' --lb-class (default: what the snapshot shows, else unset)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand check" -l memberlist -d 'Speaker memberlist (default: what the snapshot shows)' -r -f -a "enabled\t''
disabled\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand check" -l bgp-type -d 'MetalLB BGP backend (default: what the snapshot shows, else native)' -r -f -a "native\t''
frr\t''
frr-k8s\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand check" -l metallb-version -d 'Which MetalLB release\'s rules to replay, for the speakers and the controller: v0.13.0 … v0.16.1 or main (default: each from its image tag, else the Helm chart labels, else what the objects imply)' -r -f -a "v0.13.0\t''
v0.13.1\t''
v0.13.2\t''
v0.13.3\t''
v0.13.4\t''
v0.13.5\t''
v0.13.6\t''
v0.13.7\t''
v0.13.8\t''
v0.13.9\t''
v0.13.10\t''
v0.13.11\t''
v0.13.12\t''
v0.14.0\t''
v0.14.1\t''
v0.14.2\t''
v0.14.3\t''
v0.14.4\t''
v0.14.5\t''
v0.14.6\t''
v0.14.7\t''
v0.14.8\t''
v0.14.9\t''
v0.15.0\t''
v0.15.1\t''
v0.15.2\t''
v0.15.3\t''
v0.16.0\t''
v0.16.1\t''
main\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand check" -l no-config -d 'Do not read ./.lbdoctor.yaml'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand check" -l spof -d 'Also list, per node, the IPs that lose their announcer if that node alone goes down'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand check" -s w -l watch -d 'Keep watching the cluster and print a line per change (announcer, status, allocation, causes)'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand check" -l all -d 'List every Service, the healthy ones too: past 40 Services a terminal gets the problems first'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand check" -s A -l all-namespaces -d 'Every namespace'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand check" -l fill-from-cluster -d 'Take what the --from bundles lack (MetalLB\'s report: Nodes, Services, EndpointSlices, Pods) from the cluster kubectl reads'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand check" -l no-headers -d 'Tables without their header row (for scripts)'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand check" -s V -l version -d 'Print version'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand simulate" -l down -d 'The node fails (not a drain): its Pods stop, its speaker and endpoints go; the Node object stays, Ready Unknown (repeatable)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand simulate" -l delete -d 'Like --down, and the Node object is deleted too (repeatable)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand simulate" -l speaker-down -d 'Only the node\'s MetalLB speaker stops (repeatable)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand simulate" -l label -d 'Set a label on a node: --label NODE KEY=VALUE (repeatable; KEY= sets an empty value)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand simulate" -l unlabel -d 'Remove a label from a node: --unlabel NODE KEY (repeatable)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand simulate" -l apply -d 'Objects (YAML/JSON) that replace those of the same kind, namespace and name, or are added (repeatable)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand simulate" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config, else in-cluster)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand simulate" -l context -d 'The kubeconfig context to use (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand simulate" -l cluster -d 'The kubeconfig cluster to use (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand simulate" -l user -d 'The kubeconfig user to use (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand simulate" -s n -l namespace -d 'Only this namespace: explain and history default to the context\'s; check and simulate cover every namespace unless -n is given' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand simulate" -l request-timeout -d 'How long to wait for one API request, e.g. 30s, 1m; 0 waits forever (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand simulate" -l chunk-size -d 'Objects per page when listing (kubectl\'s --chunk-size)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand simulate" -l from -d 'Read a snapshot instead of a cluster: file, directory, archive (metallb_report.tgz, a sysdump .zip) or - (repeatable)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand simulate" -l demo -d 'Run on a demo cluster built into the binary instead: healthy, or trap (nodeSelectors that pick only excluded nodes)' -r -f -a "healthy\t'testdata/clusters/homelab.yaml: eight nodes, ten Services, one of them without endpoints'
trap\t'testdata/clusters/homelab-trap.yaml: the L2Advertisement selects only exclude-labelled nodes'"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand simulate" -s o -l output -d 'Output format [default: table; json for snapshot]' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t'Names only, one per line (`check`, `explain`): `service/NAME`, `ipaddresspool.metallb.io/NAME`, as kubectl prints them'
junit\t'JUnit XML (`check` only): a testcase per finding code × object'
sarif\t'SARIF 2.1.0 (`check` only): code-scanning results with a rule per finding code'
html\t'One self-contained HTML page (`check`, `explain`, `history`)'"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand simulate" -l color -d 'Colour: auto follows the terminal, NO_COLOR and TERM=dumb' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand simulate" -l fail-on -d 'Exit 1 when a finding is at or above this severity' -r -f -a "error\t''
warning\t''
info\t''
never\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand simulate" -l ignore-exclude-lb -d 'Behave as speakers run with --ignore-exclude-lb (default: what the snapshot shows)' -r -f -a "true\t''
false\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand simulate" -l lb-class -d 'The speakers\' --lb-class (default: what the snapshot shows, else unset)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand simulate" -l memberlist -d 'Speaker memberlist (default: what the snapshot shows)' -r -f -a "enabled\t''
disabled\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand simulate" -l bgp-type -d 'MetalLB BGP backend (default: what the snapshot shows, else native)' -r -f -a "native\t''
frr\t''
frr-k8s\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand simulate" -l metallb-version -d 'Which MetalLB release\'s rules to replay, for the speakers and the controller: v0.13.0 … v0.16.1 or main (default: each from its image tag, else the Helm chart labels, else what the objects imply)' -r -f -a "v0.13.0\t''
v0.13.1\t''
v0.13.2\t''
v0.13.3\t''
v0.13.4\t''
v0.13.5\t''
v0.13.6\t''
v0.13.7\t''
v0.13.8\t''
v0.13.9\t''
v0.13.10\t''
v0.13.11\t''
v0.13.12\t''
v0.14.0\t''
v0.14.1\t''
v0.14.2\t''
v0.14.3\t''
v0.14.4\t''
v0.14.5\t''
v0.14.6\t''
v0.14.7\t''
v0.14.8\t''
v0.14.9\t''
v0.15.0\t''
v0.15.1\t''
v0.15.2\t''
v0.15.3\t''
v0.16.0\t''
v0.16.1\t''
main\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand simulate" -s A -l all-namespaces -d 'Every namespace'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand simulate" -l fill-from-cluster -d 'Take what the --from bundles lack (MetalLB\'s report: Nodes, Services, EndpointSlices, Pods) from the cluster kubectl reads'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand simulate" -l no-headers -d 'Tables without their header row (for scripts)'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand simulate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand simulate" -s V -l version -d 'Print version'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand history" -l since -d 'Only what happened in this window before the snapshot was taken (live: before now), e.g. 48h, 90m' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand history" -l logs -d 'Speaker logs: a directory with one file per speaker Pod, as `kubectl logs POD -c speaker > POD.log` writes them (default: those of a --from MetalLB report bundle)' -r -F
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand history" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config, else in-cluster)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand history" -l context -d 'The kubeconfig context to use (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand history" -l cluster -d 'The kubeconfig cluster to use (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand history" -l user -d 'The kubeconfig user to use (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand history" -s n -l namespace -d 'Only this namespace: explain and history default to the context\'s; check and simulate cover every namespace unless -n is given' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand history" -l request-timeout -d 'How long to wait for one API request, e.g. 30s, 1m; 0 waits forever (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand history" -l chunk-size -d 'Objects per page when listing (kubectl\'s --chunk-size)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand history" -l from -d 'Read a snapshot instead of a cluster: file, directory, archive (metallb_report.tgz, a sysdump .zip) or - (repeatable)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand history" -l demo -d 'Run on a demo cluster built into the binary instead: healthy, or trap (nodeSelectors that pick only excluded nodes)' -r -f -a "healthy\t'testdata/clusters/homelab.yaml: eight nodes, ten Services, one of them without endpoints'
trap\t'testdata/clusters/homelab-trap.yaml: the L2Advertisement selects only exclude-labelled nodes'"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand history" -s o -l output -d 'Output format [default: table; json for snapshot]' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t'Names only, one per line (`check`, `explain`): `service/NAME`, `ipaddresspool.metallb.io/NAME`, as kubectl prints them'
junit\t'JUnit XML (`check` only): a testcase per finding code × object'
sarif\t'SARIF 2.1.0 (`check` only): code-scanning results with a rule per finding code'
html\t'One self-contained HTML page (`check`, `explain`, `history`)'"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand history" -l color -d 'Colour: auto follows the terminal, NO_COLOR and TERM=dumb' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand history" -l fail-on -d 'Exit 1 when a finding is at or above this severity' -r -f -a "error\t''
warning\t''
info\t''
never\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand history" -l ignore-exclude-lb -d 'Behave as speakers run with --ignore-exclude-lb (default: what the snapshot shows)' -r -f -a "true\t''
false\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand history" -l lb-class -d 'The speakers\' --lb-class (default: what the snapshot shows, else unset)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand history" -l memberlist -d 'Speaker memberlist (default: what the snapshot shows)' -r -f -a "enabled\t''
disabled\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand history" -l bgp-type -d 'MetalLB BGP backend (default: what the snapshot shows, else native)' -r -f -a "native\t''
frr\t''
frr-k8s\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand history" -l metallb-version -d 'Which MetalLB release\'s rules to replay, for the speakers and the controller: v0.13.0 … v0.16.1 or main (default: each from its image tag, else the Helm chart labels, else what the objects imply)' -r -f -a "v0.13.0\t''
v0.13.1\t''
v0.13.2\t''
v0.13.3\t''
v0.13.4\t''
v0.13.5\t''
v0.13.6\t''
v0.13.7\t''
v0.13.8\t''
v0.13.9\t''
v0.13.10\t''
v0.13.11\t''
v0.13.12\t''
v0.14.0\t''
v0.14.1\t''
v0.14.2\t''
v0.14.3\t''
v0.14.4\t''
v0.14.5\t''
v0.14.6\t''
v0.14.7\t''
v0.14.8\t''
v0.14.9\t''
v0.15.0\t''
v0.15.1\t''
v0.15.2\t''
v0.15.3\t''
v0.16.0\t''
v0.16.1\t''
main\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand history" -l all -d 'Every Service (the default without svc NAME)'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand history" -s A -l all-namespaces -d 'Every namespace'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand history" -l fill-from-cluster -d 'Take what the --from bundles lack (MetalLB\'s report: Nodes, Services, EndpointSlices, Pods) from the cluster kubectl reads'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand history" -l no-headers -d 'Tables without their header row (for scripts)'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand history" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand history" -s V -l version -d 'Print version'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand snapshot" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config, else in-cluster)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand snapshot" -l context -d 'The kubeconfig context to use (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand snapshot" -l cluster -d 'The kubeconfig cluster to use (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand snapshot" -l user -d 'The kubeconfig user to use (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand snapshot" -s n -l namespace -d 'Only this namespace: explain and history default to the context\'s; check and simulate cover every namespace unless -n is given' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand snapshot" -l request-timeout -d 'How long to wait for one API request, e.g. 30s, 1m; 0 waits forever (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand snapshot" -l chunk-size -d 'Objects per page when listing (kubectl\'s --chunk-size)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand snapshot" -l from -d 'Read a snapshot instead of a cluster: file, directory, archive (metallb_report.tgz, a sysdump .zip) or - (repeatable)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand snapshot" -l demo -d 'Run on a demo cluster built into the binary instead: healthy, or trap (nodeSelectors that pick only excluded nodes)' -r -f -a "healthy\t'testdata/clusters/homelab.yaml: eight nodes, ten Services, one of them without endpoints'
trap\t'testdata/clusters/homelab-trap.yaml: the L2Advertisement selects only exclude-labelled nodes'"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand snapshot" -s o -l output -d 'Output format [default: table; json for snapshot]' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t'Names only, one per line (`check`, `explain`): `service/NAME`, `ipaddresspool.metallb.io/NAME`, as kubectl prints them'
junit\t'JUnit XML (`check` only): a testcase per finding code × object'
sarif\t'SARIF 2.1.0 (`check` only): code-scanning results with a rule per finding code'
html\t'One self-contained HTML page (`check`, `explain`, `history`)'"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand snapshot" -l color -d 'Colour: auto follows the terminal, NO_COLOR and TERM=dumb' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand snapshot" -l fail-on -d 'Exit 1 when a finding is at or above this severity' -r -f -a "error\t''
warning\t''
info\t''
never\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand snapshot" -l ignore-exclude-lb -d 'Behave as speakers run with --ignore-exclude-lb (default: what the snapshot shows)' -r -f -a "true\t''
false\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand snapshot" -l lb-class -d 'The speakers\' --lb-class (default: what the snapshot shows, else unset)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand snapshot" -l memberlist -d 'Speaker memberlist (default: what the snapshot shows)' -r -f -a "enabled\t''
disabled\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand snapshot" -l bgp-type -d 'MetalLB BGP backend (default: what the snapshot shows, else native)' -r -f -a "native\t''
frr\t''
frr-k8s\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand snapshot" -l metallb-version -d 'Which MetalLB release\'s rules to replay, for the speakers and the controller: v0.13.0 … v0.16.1 or main (default: each from its image tag, else the Helm chart labels, else what the objects imply)' -r -f -a "v0.13.0\t''
v0.13.1\t''
v0.13.2\t''
v0.13.3\t''
v0.13.4\t''
v0.13.5\t''
v0.13.6\t''
v0.13.7\t''
v0.13.8\t''
v0.13.9\t''
v0.13.10\t''
v0.13.11\t''
v0.13.12\t''
v0.14.0\t''
v0.14.1\t''
v0.14.2\t''
v0.14.3\t''
v0.14.4\t''
v0.14.5\t''
v0.14.6\t''
v0.14.7\t''
v0.14.8\t''
v0.14.9\t''
v0.15.0\t''
v0.15.1\t''
v0.15.2\t''
v0.15.3\t''
v0.16.0\t''
v0.16.1\t''
main\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand snapshot" -s A -l all-namespaces -d 'Every namespace'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand snapshot" -l fill-from-cluster -d 'Take what the --from bundles lack (MetalLB\'s report: Nodes, Services, EndpointSlices, Pods) from the cluster kubectl reads'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand snapshot" -l no-headers -d 'Tables without their header row (for scripts)'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand snapshot" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand snapshot" -s V -l version -d 'Print version'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand arping" -s I -l interface -d 'Interface to ask on [default: the one whose subnet holds the IP]' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand arping" -s c -l count -d 'Requests to send, spread evenly over the listening window' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand arping" -l timeout -d 'How long to listen for answers, from the first request (e.g. 1s, 500ms)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand arping" -l mac-map -d 'File of `MAC NODE [INTERFACE]` lines naming the node behind each MAC' -r -F
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand arping" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config, else in-cluster)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand arping" -l context -d 'The kubeconfig context to use (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand arping" -l cluster -d 'The kubeconfig cluster to use (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand arping" -l user -d 'The kubeconfig user to use (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand arping" -s n -l namespace -d 'Only this namespace: explain and history default to the context\'s; check and simulate cover every namespace unless -n is given' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand arping" -l request-timeout -d 'How long to wait for one API request, e.g. 30s, 1m; 0 waits forever (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand arping" -l chunk-size -d 'Objects per page when listing (kubectl\'s --chunk-size)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand arping" -l from -d 'Read a snapshot instead of a cluster: file, directory, archive (metallb_report.tgz, a sysdump .zip) or - (repeatable)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand arping" -l demo -d 'Run on a demo cluster built into the binary instead: healthy, or trap (nodeSelectors that pick only excluded nodes)' -r -f -a "healthy\t'testdata/clusters/homelab.yaml: eight nodes, ten Services, one of them without endpoints'
trap\t'testdata/clusters/homelab-trap.yaml: the L2Advertisement selects only exclude-labelled nodes'"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand arping" -s o -l output -d 'Output format [default: table; json for snapshot]' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t'Names only, one per line (`check`, `explain`): `service/NAME`, `ipaddresspool.metallb.io/NAME`, as kubectl prints them'
junit\t'JUnit XML (`check` only): a testcase per finding code × object'
sarif\t'SARIF 2.1.0 (`check` only): code-scanning results with a rule per finding code'
html\t'One self-contained HTML page (`check`, `explain`, `history`)'"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand arping" -l color -d 'Colour: auto follows the terminal, NO_COLOR and TERM=dumb' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand arping" -l fail-on -d 'Exit 1 when a finding is at or above this severity' -r -f -a "error\t''
warning\t''
info\t''
never\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand arping" -l ignore-exclude-lb -d 'Behave as speakers run with --ignore-exclude-lb (default: what the snapshot shows)' -r -f -a "true\t''
false\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand arping" -l lb-class -d 'The speakers\' --lb-class (default: what the snapshot shows, else unset)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand arping" -l memberlist -d 'Speaker memberlist (default: what the snapshot shows)' -r -f -a "enabled\t''
disabled\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand arping" -l bgp-type -d 'MetalLB BGP backend (default: what the snapshot shows, else native)' -r -f -a "native\t''
frr\t''
frr-k8s\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand arping" -l metallb-version -d 'Which MetalLB release\'s rules to replay, for the speakers and the controller: v0.13.0 … v0.16.1 or main (default: each from its image tag, else the Helm chart labels, else what the objects imply)' -r -f -a "v0.13.0\t''
v0.13.1\t''
v0.13.2\t''
v0.13.3\t''
v0.13.4\t''
v0.13.5\t''
v0.13.6\t''
v0.13.7\t''
v0.13.8\t''
v0.13.9\t''
v0.13.10\t''
v0.13.11\t''
v0.13.12\t''
v0.14.0\t''
v0.14.1\t''
v0.14.2\t''
v0.14.3\t''
v0.14.4\t''
v0.14.5\t''
v0.14.6\t''
v0.14.7\t''
v0.14.8\t''
v0.14.9\t''
v0.15.0\t''
v0.15.1\t''
v0.15.2\t''
v0.15.3\t''
v0.16.0\t''
v0.16.1\t''
main\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand arping" -s A -l all-namespaces -d 'Every namespace'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand arping" -l fill-from-cluster -d 'Take what the --from bundles lack (MetalLB\'s report: Nodes, Services, EndpointSlices, Pods) from the cluster kubectl reads'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand arping" -l no-headers -d 'Tables without their header row (for scripts)'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand arping" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand arping" -s V -l version -d 'Print version'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand announce" -s I -l interface -d 'The interface to answer on (its MAC is the one announced)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand announce" -l duration -d 'How long to answer, counted from the first answer-ready moment (e.g. 30s, 10m, 1h)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand announce" -l ndp-source -d 'Source address of solicited Neighbor Advertisements: MetalLB\'s (link-local) or the announced IP' -r -f -a "link-local\t'The interface\'s link-local address, as MetalLB\'s speaker sends them (spec §6.2)'
target\t'The announced address itself, as the kernel answers for its own addresses. Some tools (ndisc6 1.0.5) discard advertisements for a global target from any other source'"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand announce" -l node -d 'This host\'s node name, to compare with the election [default: the hostname]' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand announce" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config, else in-cluster)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand announce" -l context -d 'The kubeconfig context to use (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand announce" -l cluster -d 'The kubeconfig cluster to use (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand announce" -l user -d 'The kubeconfig user to use (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand announce" -s n -l namespace -d 'Only this namespace: explain and history default to the context\'s; check and simulate cover every namespace unless -n is given' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand announce" -l request-timeout -d 'How long to wait for one API request, e.g. 30s, 1m; 0 waits forever (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand announce" -l chunk-size -d 'Objects per page when listing (kubectl\'s --chunk-size)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand announce" -l from -d 'Read a snapshot instead of a cluster: file, directory, archive (metallb_report.tgz, a sysdump .zip) or - (repeatable)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand announce" -l demo -d 'Run on a demo cluster built into the binary instead: healthy, or trap (nodeSelectors that pick only excluded nodes)' -r -f -a "healthy\t'testdata/clusters/homelab.yaml: eight nodes, ten Services, one of them without endpoints'
trap\t'testdata/clusters/homelab-trap.yaml: the L2Advertisement selects only exclude-labelled nodes'"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand announce" -s o -l output -d 'Output format [default: table; json for snapshot]' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t'Names only, one per line (`check`, `explain`): `service/NAME`, `ipaddresspool.metallb.io/NAME`, as kubectl prints them'
junit\t'JUnit XML (`check` only): a testcase per finding code × object'
sarif\t'SARIF 2.1.0 (`check` only): code-scanning results with a rule per finding code'
html\t'One self-contained HTML page (`check`, `explain`, `history`)'"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand announce" -l color -d 'Colour: auto follows the terminal, NO_COLOR and TERM=dumb' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand announce" -l fail-on -d 'Exit 1 when a finding is at or above this severity' -r -f -a "error\t''
warning\t''
info\t''
never\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand announce" -l ignore-exclude-lb -d 'Behave as speakers run with --ignore-exclude-lb (default: what the snapshot shows)' -r -f -a "true\t''
false\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand announce" -l lb-class -d 'The speakers\' --lb-class (default: what the snapshot shows, else unset)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand announce" -l memberlist -d 'Speaker memberlist (default: what the snapshot shows)' -r -f -a "enabled\t''
disabled\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand announce" -l bgp-type -d 'MetalLB BGP backend (default: what the snapshot shows, else native)' -r -f -a "native\t''
frr\t''
frr-k8s\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand announce" -l metallb-version -d 'Which MetalLB release\'s rules to replay, for the speakers and the controller: v0.13.0 … v0.16.1 or main (default: each from its image tag, else the Helm chart labels, else what the objects imply)' -r -f -a "v0.13.0\t''
v0.13.1\t''
v0.13.2\t''
v0.13.3\t''
v0.13.4\t''
v0.13.5\t''
v0.13.6\t''
v0.13.7\t''
v0.13.8\t''
v0.13.9\t''
v0.13.10\t''
v0.13.11\t''
v0.13.12\t''
v0.14.0\t''
v0.14.1\t''
v0.14.2\t''
v0.14.3\t''
v0.14.4\t''
v0.14.5\t''
v0.14.6\t''
v0.14.7\t''
v0.14.8\t''
v0.14.9\t''
v0.15.0\t''
v0.15.1\t''
v0.15.2\t''
v0.15.3\t''
v0.16.0\t''
v0.16.1\t''
main\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand announce" -l until-interrupted -d 'Answer until SIGINT or SIGTERM instead of for a --duration'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand announce" -l force -d 'Answer even when another MAC already answers for an IP (split brain)'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand announce" -l dry-run -d 'Print what would be sent and answered; send nothing'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand announce" -s A -l all-namespaces -d 'Every namespace'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand announce" -l fill-from-cluster -d 'Take what the --from bundles lack (MetalLB\'s report: Nodes, Services, EndpointSlices, Pods) from the cluster kubectl reads'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand announce" -l no-headers -d 'Tables without their header row (for scripts)'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand announce" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand announce" -s V -l version -d 'Print version'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand version" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config, else in-cluster)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand version" -l context -d 'The kubeconfig context to use (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand version" -l cluster -d 'The kubeconfig cluster to use (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand version" -l user -d 'The kubeconfig user to use (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand version" -s n -l namespace -d 'Only this namespace: explain and history default to the context\'s; check and simulate cover every namespace unless -n is given' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand version" -l request-timeout -d 'How long to wait for one API request, e.g. 30s, 1m; 0 waits forever (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand version" -l chunk-size -d 'Objects per page when listing (kubectl\'s --chunk-size)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand version" -l from -d 'Read a snapshot instead of a cluster: file, directory, archive (metallb_report.tgz, a sysdump .zip) or - (repeatable)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand version" -l demo -d 'Run on a demo cluster built into the binary instead: healthy, or trap (nodeSelectors that pick only excluded nodes)' -r -f -a "healthy\t'testdata/clusters/homelab.yaml: eight nodes, ten Services, one of them without endpoints'
trap\t'testdata/clusters/homelab-trap.yaml: the L2Advertisement selects only exclude-labelled nodes'"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand version" -s o -l output -d 'Output format [default: table; json for snapshot]' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t'Names only, one per line (`check`, `explain`): `service/NAME`, `ipaddresspool.metallb.io/NAME`, as kubectl prints them'
junit\t'JUnit XML (`check` only): a testcase per finding code × object'
sarif\t'SARIF 2.1.0 (`check` only): code-scanning results with a rule per finding code'
html\t'One self-contained HTML page (`check`, `explain`, `history`)'"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand version" -l color -d 'Colour: auto follows the terminal, NO_COLOR and TERM=dumb' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand version" -l fail-on -d 'Exit 1 when a finding is at or above this severity' -r -f -a "error\t''
warning\t''
info\t''
never\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand version" -l ignore-exclude-lb -d 'Behave as speakers run with --ignore-exclude-lb (default: what the snapshot shows)' -r -f -a "true\t''
false\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand version" -l lb-class -d 'The speakers\' --lb-class (default: what the snapshot shows, else unset)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand version" -l memberlist -d 'Speaker memberlist (default: what the snapshot shows)' -r -f -a "enabled\t''
disabled\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand version" -l bgp-type -d 'MetalLB BGP backend (default: what the snapshot shows, else native)' -r -f -a "native\t''
frr\t''
frr-k8s\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand version" -l metallb-version -d 'Which MetalLB release\'s rules to replay, for the speakers and the controller: v0.13.0 … v0.16.1 or main (default: each from its image tag, else the Helm chart labels, else what the objects imply)' -r -f -a "v0.13.0\t''
v0.13.1\t''
v0.13.2\t''
v0.13.3\t''
v0.13.4\t''
v0.13.5\t''
v0.13.6\t''
v0.13.7\t''
v0.13.8\t''
v0.13.9\t''
v0.13.10\t''
v0.13.11\t''
v0.13.12\t''
v0.14.0\t''
v0.14.1\t''
v0.14.2\t''
v0.14.3\t''
v0.14.4\t''
v0.14.5\t''
v0.14.6\t''
v0.14.7\t''
v0.14.8\t''
v0.14.9\t''
v0.15.0\t''
v0.15.1\t''
v0.15.2\t''
v0.15.3\t''
v0.16.0\t''
v0.16.1\t''
main\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand version" -s A -l all-namespaces -d 'Every namespace'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand version" -l fill-from-cluster -d 'Take what the --from bundles lack (MetalLB\'s report: Nodes, Services, EndpointSlices, Pods) from the cluster kubectl reads'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand version" -l no-headers -d 'Tables without their header row (for scripts)'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand version" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand version" -s V -l version -d 'Print version'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand completion" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config, else in-cluster)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand completion" -l context -d 'The kubeconfig context to use (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand completion" -l cluster -d 'The kubeconfig cluster to use (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand completion" -l user -d 'The kubeconfig user to use (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand completion" -s n -l namespace -d 'Only this namespace: explain and history default to the context\'s; check and simulate cover every namespace unless -n is given' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand completion" -l request-timeout -d 'How long to wait for one API request, e.g. 30s, 1m; 0 waits forever (live mode)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand completion" -l chunk-size -d 'Objects per page when listing (kubectl\'s --chunk-size)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand completion" -l from -d 'Read a snapshot instead of a cluster: file, directory, archive (metallb_report.tgz, a sysdump .zip) or - (repeatable)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand completion" -l demo -d 'Run on a demo cluster built into the binary instead: healthy, or trap (nodeSelectors that pick only excluded nodes)' -r -f -a "healthy\t'testdata/clusters/homelab.yaml: eight nodes, ten Services, one of them without endpoints'
trap\t'testdata/clusters/homelab-trap.yaml: the L2Advertisement selects only exclude-labelled nodes'"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand completion" -s o -l output -d 'Output format [default: table; json for snapshot]' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t'Names only, one per line (`check`, `explain`): `service/NAME`, `ipaddresspool.metallb.io/NAME`, as kubectl prints them'
junit\t'JUnit XML (`check` only): a testcase per finding code × object'
sarif\t'SARIF 2.1.0 (`check` only): code-scanning results with a rule per finding code'
html\t'One self-contained HTML page (`check`, `explain`, `history`)'"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand completion" -l color -d 'Colour: auto follows the terminal, NO_COLOR and TERM=dumb' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand completion" -l fail-on -d 'Exit 1 when a finding is at or above this severity' -r -f -a "error\t''
warning\t''
info\t''
never\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand completion" -l ignore-exclude-lb -d 'Behave as speakers run with --ignore-exclude-lb (default: what the snapshot shows)' -r -f -a "true\t''
false\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand completion" -l lb-class -d 'The speakers\' --lb-class (default: what the snapshot shows, else unset)' -r
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand completion" -l memberlist -d 'Speaker memberlist (default: what the snapshot shows)' -r -f -a "enabled\t''
disabled\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand completion" -l bgp-type -d 'MetalLB BGP backend (default: what the snapshot shows, else native)' -r -f -a "native\t''
frr\t''
frr-k8s\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand completion" -l metallb-version -d 'Which MetalLB release\'s rules to replay, for the speakers and the controller: v0.13.0 … v0.16.1 or main (default: each from its image tag, else the Helm chart labels, else what the objects imply)' -r -f -a "v0.13.0\t''
v0.13.1\t''
v0.13.2\t''
v0.13.3\t''
v0.13.4\t''
v0.13.5\t''
v0.13.6\t''
v0.13.7\t''
v0.13.8\t''
v0.13.9\t''
v0.13.10\t''
v0.13.11\t''
v0.13.12\t''
v0.14.0\t''
v0.14.1\t''
v0.14.2\t''
v0.14.3\t''
v0.14.4\t''
v0.14.5\t''
v0.14.6\t''
v0.14.7\t''
v0.14.8\t''
v0.14.9\t''
v0.15.0\t''
v0.15.1\t''
v0.15.2\t''
v0.15.3\t''
v0.16.0\t''
v0.16.1\t''
main\t''"
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand completion" -s A -l all-namespaces -d 'Every namespace'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand completion" -l fill-from-cluster -d 'Take what the --from bundles lack (MetalLB\'s report: Nodes, Services, EndpointSlices, Pods) from the cluster kubectl reads'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand completion" -l no-headers -d 'Tables without their header row (for scripts)'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand completion" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand completion" -s V -l version -d 'Print version'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand help; and not __fish_seen_subcommand_from explain check simulate history snapshot arping announce version completion help" -f -a "explain" -d 'Explain one Service (allocation, every node, every filter) or list them; or MetalLB\'s pools'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand help; and not __fish_seen_subcommand_from explain check simulate history snapshot arping announce version completion help" -f -a "check" -d 'Check every Service and the MetalLB configuration; exit 1 on findings (for CI)'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand help; and not __fish_seen_subcommand_from explain check simulate history snapshot arping announce version completion help" -f -a "simulate" -d 'What moves if nodes go down, labels change or edited objects are applied: every engine run before and after'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand help; and not __fish_seen_subcommand_from explain check simulate history snapshot arping announce version completion help" -f -a "history" -d 'How often each IP changed owner, and why: speaker logs, nodeAssigned Events, ServiceL2Status, restarts'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand help; and not __fish_seen_subcommand_from explain check simulate history snapshot arping announce version completion help" -f -a "snapshot" -d 'Save what the engines read from the live cluster, for --from later (JSON, or -o yaml)'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand help; and not __fish_seen_subcommand_from explain check simulate history snapshot arping announce version completion help" -f -a "arping" -d 'Who answers ARP/NDP for an IP right now: every MAC, not only the first (Linux; root or CAP_NET_RAW)'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand help; and not __fish_seen_subcommand_from explain check simulate history snapshot arping announce version completion help" -f -a "announce" -d 'Answer ARP/NDP for IPs from this host, as MetalLB\'s speaker does: a last resort (Linux; root or CAP_NET_RAW)'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand help; and not __fish_seen_subcommand_from explain check simulate history snapshot arping announce version completion help" -f -a "version" -d 'Print the version, git commit, build date and Kubernetes API version (-o json for CI)'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand help; and not __fish_seen_subcommand_from explain check simulate history snapshot arping announce version completion help" -f -a "completion" -d 'Print a shell completion script: bash, zsh, fish, or kubectl (the kubectl_complete-lbdoctor script)'
complete -c kubectl-lbdoctor -n "__fish_kubectl_lbdoctor_using_subcommand help; and not __fish_seen_subcommand_from explain check simulate history snapshot arping announce version completion help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
