_kubectl__lbdoctor() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="kubectl__lbdoctor"
                ;;
            kubectl__lbdoctor,announce)
                cmd="kubectl__lbdoctor__subcmd__announce"
                ;;
            kubectl__lbdoctor,arping)
                cmd="kubectl__lbdoctor__subcmd__arping"
                ;;
            kubectl__lbdoctor,check)
                cmd="kubectl__lbdoctor__subcmd__check"
                ;;
            kubectl__lbdoctor,completion)
                cmd="kubectl__lbdoctor__subcmd__completion"
                ;;
            kubectl__lbdoctor,explain)
                cmd="kubectl__lbdoctor__subcmd__explain"
                ;;
            kubectl__lbdoctor,help)
                cmd="kubectl__lbdoctor__subcmd__help"
                ;;
            kubectl__lbdoctor,history)
                cmd="kubectl__lbdoctor__subcmd__history"
                ;;
            kubectl__lbdoctor,simulate)
                cmd="kubectl__lbdoctor__subcmd__simulate"
                ;;
            kubectl__lbdoctor,snapshot)
                cmd="kubectl__lbdoctor__subcmd__snapshot"
                ;;
            kubectl__lbdoctor,version)
                cmd="kubectl__lbdoctor__subcmd__version"
                ;;
            kubectl__lbdoctor__subcmd__help,announce)
                cmd="kubectl__lbdoctor__subcmd__help__subcmd__announce"
                ;;
            kubectl__lbdoctor__subcmd__help,arping)
                cmd="kubectl__lbdoctor__subcmd__help__subcmd__arping"
                ;;
            kubectl__lbdoctor__subcmd__help,check)
                cmd="kubectl__lbdoctor__subcmd__help__subcmd__check"
                ;;
            kubectl__lbdoctor__subcmd__help,completion)
                cmd="kubectl__lbdoctor__subcmd__help__subcmd__completion"
                ;;
            kubectl__lbdoctor__subcmd__help,explain)
                cmd="kubectl__lbdoctor__subcmd__help__subcmd__explain"
                ;;
            kubectl__lbdoctor__subcmd__help,help)
                cmd="kubectl__lbdoctor__subcmd__help__subcmd__help"
                ;;
            kubectl__lbdoctor__subcmd__help,history)
                cmd="kubectl__lbdoctor__subcmd__help__subcmd__history"
                ;;
            kubectl__lbdoctor__subcmd__help,simulate)
                cmd="kubectl__lbdoctor__subcmd__help__subcmd__simulate"
                ;;
            kubectl__lbdoctor__subcmd__help,snapshot)
                cmd="kubectl__lbdoctor__subcmd__help__subcmd__snapshot"
                ;;
            kubectl__lbdoctor__subcmd__help,version)
                cmd="kubectl__lbdoctor__subcmd__help__subcmd__version"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        kubectl__lbdoctor)
            opts="-n -A -o -h -V --kubeconfig --context --cluster --user --namespace --all-namespaces --request-timeout --chunk-size --from --fill-from-cluster --demo --output --color --no-headers --fail-on --ignore-exclude-lb --lb-class --memberlist --bgp-type --metallb-version --help --version explain check simulate history snapshot arping announce version completion help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cluster)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --request-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --chunk-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --demo)
                    COMPREPLY=($(compgen -W "healthy trap" -- "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table wide json yaml name junit sarif html" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table wide json yaml name junit sarif html" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --fail-on)
                    COMPREPLY=($(compgen -W "error warning info never" -- "${cur}"))
                    return 0
                    ;;
                --ignore-exclude-lb)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --lb-class)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --memberlist)
                    COMPREPLY=($(compgen -W "enabled disabled" -- "${cur}"))
                    return 0
                    ;;
                --bgp-type)
                    COMPREPLY=($(compgen -W "native frr frr-k8s" -- "${cur}"))
                    return 0
                    ;;
                --metallb-version)
                    COMPREPLY=($(compgen -W "v0.13.0 v0.13.1 v0.13.2 v0.13.3 v0.13.4 v0.13.5 v0.13.6 v0.13.7 v0.13.8 v0.13.9 v0.13.10 v0.13.11 v0.13.12 v0.14.0 v0.14.1 v0.14.2 v0.14.3 v0.14.4 v0.14.5 v0.14.6 v0.14.7 v0.14.8 v0.14.9 v0.15.0 v0.15.1 v0.15.2 v0.15.3 v0.16.0 v0.16.1 main" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__lbdoctor__subcmd__announce)
            opts="-I -n -A -o -h -V --interface --duration --until-interrupted --force --dry-run --ndp-source --node --kubeconfig --context --cluster --user --namespace --all-namespaces --request-timeout --chunk-size --from --fill-from-cluster --demo --output --color --no-headers --fail-on --ignore-exclude-lb --lb-class --memberlist --bgp-type --metallb-version --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --interface)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -I)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --duration)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ndp-source)
                    COMPREPLY=($(compgen -W "link-local target" -- "${cur}"))
                    return 0
                    ;;
                --node)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cluster)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --request-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --chunk-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --demo)
                    COMPREPLY=($(compgen -W "healthy trap" -- "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table wide json yaml name junit sarif html" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table wide json yaml name junit sarif html" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --fail-on)
                    COMPREPLY=($(compgen -W "error warning info never" -- "${cur}"))
                    return 0
                    ;;
                --ignore-exclude-lb)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --lb-class)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --memberlist)
                    COMPREPLY=($(compgen -W "enabled disabled" -- "${cur}"))
                    return 0
                    ;;
                --bgp-type)
                    COMPREPLY=($(compgen -W "native frr frr-k8s" -- "${cur}"))
                    return 0
                    ;;
                --metallb-version)
                    COMPREPLY=($(compgen -W "v0.13.0 v0.13.1 v0.13.2 v0.13.3 v0.13.4 v0.13.5 v0.13.6 v0.13.7 v0.13.8 v0.13.9 v0.13.10 v0.13.11 v0.13.12 v0.14.0 v0.14.1 v0.14.2 v0.14.3 v0.14.4 v0.14.5 v0.14.6 v0.14.7 v0.14.8 v0.14.9 v0.15.0 v0.15.1 v0.15.2 v0.15.3 v0.16.0 v0.16.1 main" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__lbdoctor__subcmd__arping)
            opts="-I -c -n -A -o -h -V --interface --count --timeout --mac-map --kubeconfig --context --cluster --user --namespace --all-namespaces --request-timeout --chunk-size --from --fill-from-cluster --demo --output --color --no-headers --fail-on --ignore-exclude-lb --lb-class --memberlist --bgp-type --metallb-version --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --interface)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -I)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --count)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -c)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mac-map)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cluster)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --request-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --chunk-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --demo)
                    COMPREPLY=($(compgen -W "healthy trap" -- "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table wide json yaml name junit sarif html" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table wide json yaml name junit sarif html" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --fail-on)
                    COMPREPLY=($(compgen -W "error warning info never" -- "${cur}"))
                    return 0
                    ;;
                --ignore-exclude-lb)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --lb-class)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --memberlist)
                    COMPREPLY=($(compgen -W "enabled disabled" -- "${cur}"))
                    return 0
                    ;;
                --bgp-type)
                    COMPREPLY=($(compgen -W "native frr frr-k8s" -- "${cur}"))
                    return 0
                    ;;
                --metallb-version)
                    COMPREPLY=($(compgen -W "v0.13.0 v0.13.1 v0.13.2 v0.13.3 v0.13.4 v0.13.5 v0.13.6 v0.13.7 v0.13.8 v0.13.9 v0.13.10 v0.13.11 v0.13.12 v0.14.0 v0.14.1 v0.14.2 v0.14.3 v0.14.4 v0.14.5 v0.14.6 v0.14.7 v0.14.8 v0.14.9 v0.15.0 v0.15.1 v0.15.2 v0.15.3 v0.16.0 v0.16.1 main" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__lbdoctor__subcmd__check)
            opts="-w -n -A -o -h -V --ignore --config --no-config --spof --nodes --watch --timeout --all --kubeconfig --context --cluster --user --namespace --all-namespaces --request-timeout --chunk-size --from --fill-from-cluster --demo --output --color --no-headers --fail-on --ignore-exclude-lb --lb-class --memberlist --bgp-type --metallb-version --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --ignore)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nodes)
                    COMPREPLY=($(compgen -W "top all" -- "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cluster)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --request-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --chunk-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --demo)
                    COMPREPLY=($(compgen -W "healthy trap" -- "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table wide json yaml name junit sarif html" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table wide json yaml name junit sarif html" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --fail-on)
                    COMPREPLY=($(compgen -W "error warning info never" -- "${cur}"))
                    return 0
                    ;;
                --ignore-exclude-lb)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --lb-class)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --memberlist)
                    COMPREPLY=($(compgen -W "enabled disabled" -- "${cur}"))
                    return 0
                    ;;
                --bgp-type)
                    COMPREPLY=($(compgen -W "native frr frr-k8s" -- "${cur}"))
                    return 0
                    ;;
                --metallb-version)
                    COMPREPLY=($(compgen -W "v0.13.0 v0.13.1 v0.13.2 v0.13.3 v0.13.4 v0.13.5 v0.13.6 v0.13.7 v0.13.8 v0.13.9 v0.13.10 v0.13.11 v0.13.12 v0.14.0 v0.14.1 v0.14.2 v0.14.3 v0.14.4 v0.14.5 v0.14.6 v0.14.7 v0.14.8 v0.14.9 v0.15.0 v0.15.1 v0.15.2 v0.15.3 v0.16.0 v0.16.1 main" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__lbdoctor__subcmd__completion)
            opts="-n -A -o -h -V --kubeconfig --context --cluster --user --namespace --all-namespaces --request-timeout --chunk-size --from --fill-from-cluster --demo --output --color --no-headers --fail-on --ignore-exclude-lb --lb-class --memberlist --bgp-type --metallb-version --help --version bash zsh fish kubectl"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cluster)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --request-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --chunk-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --demo)
                    COMPREPLY=($(compgen -W "healthy trap" -- "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table wide json yaml name junit sarif html" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table wide json yaml name junit sarif html" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --fail-on)
                    COMPREPLY=($(compgen -W "error warning info never" -- "${cur}"))
                    return 0
                    ;;
                --ignore-exclude-lb)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --lb-class)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --memberlist)
                    COMPREPLY=($(compgen -W "enabled disabled" -- "${cur}"))
                    return 0
                    ;;
                --bgp-type)
                    COMPREPLY=($(compgen -W "native frr frr-k8s" -- "${cur}"))
                    return 0
                    ;;
                --metallb-version)
                    COMPREPLY=($(compgen -W "v0.13.0 v0.13.1 v0.13.2 v0.13.3 v0.13.4 v0.13.5 v0.13.6 v0.13.7 v0.13.8 v0.13.9 v0.13.10 v0.13.11 v0.13.12 v0.14.0 v0.14.1 v0.14.2 v0.14.3 v0.14.4 v0.14.5 v0.14.6 v0.14.7 v0.14.8 v0.14.9 v0.15.0 v0.15.1 v0.15.2 v0.15.3 v0.16.0 v0.16.1 main" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__lbdoctor__subcmd__explain)
            opts="-w -n -A -o -h -V --nodes --watch --timeout --kubeconfig --context --cluster --user --namespace --all-namespaces --request-timeout --chunk-size --from --fill-from-cluster --demo --output --color --no-headers --fail-on --ignore-exclude-lb --lb-class --memberlist --bgp-type --metallb-version --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --nodes)
                    COMPREPLY=($(compgen -W "top all" -- "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cluster)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --request-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --chunk-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --demo)
                    COMPREPLY=($(compgen -W "healthy trap" -- "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table wide json yaml name junit sarif html" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table wide json yaml name junit sarif html" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --fail-on)
                    COMPREPLY=($(compgen -W "error warning info never" -- "${cur}"))
                    return 0
                    ;;
                --ignore-exclude-lb)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --lb-class)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --memberlist)
                    COMPREPLY=($(compgen -W "enabled disabled" -- "${cur}"))
                    return 0
                    ;;
                --bgp-type)
                    COMPREPLY=($(compgen -W "native frr frr-k8s" -- "${cur}"))
                    return 0
                    ;;
                --metallb-version)
                    COMPREPLY=($(compgen -W "v0.13.0 v0.13.1 v0.13.2 v0.13.3 v0.13.4 v0.13.5 v0.13.6 v0.13.7 v0.13.8 v0.13.9 v0.13.10 v0.13.11 v0.13.12 v0.14.0 v0.14.1 v0.14.2 v0.14.3 v0.14.4 v0.14.5 v0.14.6 v0.14.7 v0.14.8 v0.14.9 v0.15.0 v0.15.1 v0.15.2 v0.15.3 v0.16.0 v0.16.1 main" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__lbdoctor__subcmd__help)
            opts="explain check simulate history snapshot arping announce version completion help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__lbdoctor__subcmd__help__subcmd__announce)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__lbdoctor__subcmd__help__subcmd__arping)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__lbdoctor__subcmd__help__subcmd__check)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__lbdoctor__subcmd__help__subcmd__completion)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__lbdoctor__subcmd__help__subcmd__explain)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__lbdoctor__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__lbdoctor__subcmd__help__subcmd__history)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__lbdoctor__subcmd__help__subcmd__simulate)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__lbdoctor__subcmd__help__subcmd__snapshot)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__lbdoctor__subcmd__help__subcmd__version)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__lbdoctor__subcmd__history)
            opts="-n -A -o -h -V --all --since --logs --kubeconfig --context --cluster --user --namespace --all-namespaces --request-timeout --chunk-size --from --fill-from-cluster --demo --output --color --no-headers --fail-on --ignore-exclude-lb --lb-class --memberlist --bgp-type --metallb-version --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --since)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --logs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cluster)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --request-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --chunk-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --demo)
                    COMPREPLY=($(compgen -W "healthy trap" -- "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table wide json yaml name junit sarif html" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table wide json yaml name junit sarif html" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --fail-on)
                    COMPREPLY=($(compgen -W "error warning info never" -- "${cur}"))
                    return 0
                    ;;
                --ignore-exclude-lb)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --lb-class)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --memberlist)
                    COMPREPLY=($(compgen -W "enabled disabled" -- "${cur}"))
                    return 0
                    ;;
                --bgp-type)
                    COMPREPLY=($(compgen -W "native frr frr-k8s" -- "${cur}"))
                    return 0
                    ;;
                --metallb-version)
                    COMPREPLY=($(compgen -W "v0.13.0 v0.13.1 v0.13.2 v0.13.3 v0.13.4 v0.13.5 v0.13.6 v0.13.7 v0.13.8 v0.13.9 v0.13.10 v0.13.11 v0.13.12 v0.14.0 v0.14.1 v0.14.2 v0.14.3 v0.14.4 v0.14.5 v0.14.6 v0.14.7 v0.14.8 v0.14.9 v0.15.0 v0.15.1 v0.15.2 v0.15.3 v0.16.0 v0.16.1 main" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__lbdoctor__subcmd__simulate)
            opts="-n -A -o -h -V --down --delete --speaker-down --label --unlabel --apply --kubeconfig --context --cluster --user --namespace --all-namespaces --request-timeout --chunk-size --from --fill-from-cluster --demo --output --color --no-headers --fail-on --ignore-exclude-lb --lb-class --memberlist --bgp-type --metallb-version --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --down)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --delete)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --speaker-down)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --label)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --unlabel)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --apply)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cluster)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --request-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --chunk-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --demo)
                    COMPREPLY=($(compgen -W "healthy trap" -- "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table wide json yaml name junit sarif html" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table wide json yaml name junit sarif html" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --fail-on)
                    COMPREPLY=($(compgen -W "error warning info never" -- "${cur}"))
                    return 0
                    ;;
                --ignore-exclude-lb)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --lb-class)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --memberlist)
                    COMPREPLY=($(compgen -W "enabled disabled" -- "${cur}"))
                    return 0
                    ;;
                --bgp-type)
                    COMPREPLY=($(compgen -W "native frr frr-k8s" -- "${cur}"))
                    return 0
                    ;;
                --metallb-version)
                    COMPREPLY=($(compgen -W "v0.13.0 v0.13.1 v0.13.2 v0.13.3 v0.13.4 v0.13.5 v0.13.6 v0.13.7 v0.13.8 v0.13.9 v0.13.10 v0.13.11 v0.13.12 v0.14.0 v0.14.1 v0.14.2 v0.14.3 v0.14.4 v0.14.5 v0.14.6 v0.14.7 v0.14.8 v0.14.9 v0.15.0 v0.15.1 v0.15.2 v0.15.3 v0.16.0 v0.16.1 main" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__lbdoctor__subcmd__snapshot)
            opts="-n -A -o -h -V --kubeconfig --context --cluster --user --namespace --all-namespaces --request-timeout --chunk-size --from --fill-from-cluster --demo --output --color --no-headers --fail-on --ignore-exclude-lb --lb-class --memberlist --bgp-type --metallb-version --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cluster)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --request-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --chunk-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --demo)
                    COMPREPLY=($(compgen -W "healthy trap" -- "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table wide json yaml name junit sarif html" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table wide json yaml name junit sarif html" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --fail-on)
                    COMPREPLY=($(compgen -W "error warning info never" -- "${cur}"))
                    return 0
                    ;;
                --ignore-exclude-lb)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --lb-class)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --memberlist)
                    COMPREPLY=($(compgen -W "enabled disabled" -- "${cur}"))
                    return 0
                    ;;
                --bgp-type)
                    COMPREPLY=($(compgen -W "native frr frr-k8s" -- "${cur}"))
                    return 0
                    ;;
                --metallb-version)
                    COMPREPLY=($(compgen -W "v0.13.0 v0.13.1 v0.13.2 v0.13.3 v0.13.4 v0.13.5 v0.13.6 v0.13.7 v0.13.8 v0.13.9 v0.13.10 v0.13.11 v0.13.12 v0.14.0 v0.14.1 v0.14.2 v0.14.3 v0.14.4 v0.14.5 v0.14.6 v0.14.7 v0.14.8 v0.14.9 v0.15.0 v0.15.1 v0.15.2 v0.15.3 v0.16.0 v0.16.1 main" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        kubectl__lbdoctor__subcmd__version)
            opts="-n -A -o -h -V --kubeconfig --context --cluster --user --namespace --all-namespaces --request-timeout --chunk-size --from --fill-from-cluster --demo --output --color --no-headers --fail-on --ignore-exclude-lb --lb-class --memberlist --bgp-type --metallb-version --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cluster)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --request-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --chunk-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --demo)
                    COMPREPLY=($(compgen -W "healthy trap" -- "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table wide json yaml name junit sarif html" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table wide json yaml name junit sarif html" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --fail-on)
                    COMPREPLY=($(compgen -W "error warning info never" -- "${cur}"))
                    return 0
                    ;;
                --ignore-exclude-lb)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --lb-class)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --memberlist)
                    COMPREPLY=($(compgen -W "enabled disabled" -- "${cur}"))
                    return 0
                    ;;
                --bgp-type)
                    COMPREPLY=($(compgen -W "native frr frr-k8s" -- "${cur}"))
                    return 0
                    ;;
                --metallb-version)
                    COMPREPLY=($(compgen -W "v0.13.0 v0.13.1 v0.13.2 v0.13.3 v0.13.4 v0.13.5 v0.13.6 v0.13.7 v0.13.8 v0.13.9 v0.13.10 v0.13.11 v0.13.12 v0.14.0 v0.14.1 v0.14.2 v0.14.3 v0.14.4 v0.14.5 v0.14.6 v0.14.7 v0.14.8 v0.14.9 v0.15.0 v0.15.1 v0.15.2 v0.15.3 v0.16.0 v0.16.1 main" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _kubectl__lbdoctor -o nosort -o bashdefault -o default kubectl-lbdoctor
else
    complete -F _kubectl__lbdoctor -o bashdefault -o default kubectl-lbdoctor
fi
